import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { productVersion } from './product-version';

describe(productVersion.name, () => {
  it("is package.json's version, read from the package root above the sources", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')) as {
      version: string;
    };
    expect(productVersion()).toBe(manifest.version);
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  });

  it("skips another package's manifest on the way up, and says unknown when there is none", () => {
    const root = mkdtempSync(join(tmpdir(), 'product-version-'));
    try {
      mkdirSync(join(root, 'pkg/node_modules/other/lib'), { recursive: true });
      writeFileSync(join(root, 'pkg/package.json'), JSON.stringify({ name: 'acm-runtime', version: '9.8.7' }));
      writeFileSync(
        join(root, 'pkg/node_modules/other/package.json'),
        JSON.stringify({ name: 'other', version: '1.0.0' }),
      );
      expect(productVersion(join(root, 'pkg/node_modules/other/lib'))).toBe('9.8.7');
      expect(productVersion(join(root))).toBe('unknown');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
