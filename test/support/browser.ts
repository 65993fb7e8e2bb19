import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { REPO_ROOT } from './runtime-harness';

/** Screenshots of browser tests land here (gitignored); CI keeps the folder as the run's artifacts. */
export const ARTIFACT_DIR = join(REPO_ROOT, 'test-artifacts');

/**
 * Debian's Chromium, driven by playwright-core (which downloads no browser): the path comes from
 * scripts/ensure-chromium.sh, which installs the package when it is missing.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync('bash', [join(REPO_ROOT, 'scripts/ensure-chromium.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .at(-1)!;
  // Root (CI, the build machines) cannot use Chromium's sandbox.
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export function artifactPath(suite: string, name: string): string {
  const directory = join(ARTIFACT_DIR, suite);
  mkdirSync(directory, { recursive: true });
  return join(directory, name);
}
