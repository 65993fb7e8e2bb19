import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The API version of ONAP CLAMP ACM the runtime implements: its X-*Version headers and OpenAPI info say this one. */
export const ONAP_API_VERSION = '1.0.0';

/**
 * The runtime's own semantic version, package.json's: read from the package root above this file, which is the same
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
