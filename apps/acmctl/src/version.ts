import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * acmctl's version, the runtime package's it ships in, package.json's: read from the package root above this file, which is the same
 * number of folders up from the sources and from dist/ (so it is never a copy that can go stale).
 */
export function productVersion(from: string = __dirname): string {
  for (let folder = from; folder !== dirname(folder); folder = dirname(folder)) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === 'acm-runtime' && typeof manifest.version === 'string') {
        return manifest.version;
      }
    } catch {
      // no package.json here: look one folder up
    }
  }
  return 'unknown';
}
