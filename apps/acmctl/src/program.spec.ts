import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productVersion, versionAsked } from './program';

describe('acmctl --version', () => {
  it("is the runtime package's semantic version", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    expect(productVersion()).toBe(manifest.version);
  });

  it('is asked by --version or -V first, never by the --version filter of a sub-command', () => {
    expect(versionAsked(['--version'])).toBe(true);
    expect(versionAsked(['-V', '--url', 'http://localhost:6969'])).toBe(true);
    expect(versionAsked(['--url', 'http://localhost:6969', 'definitions', 'list', '--version', '1.0.0'])).toBe(false);
    expect(versionAsked(['definitions', 'list', '--version', '1.0.0'])).toBe(false);
    expect(versionAsked([])).toBe(false);
  });
});
