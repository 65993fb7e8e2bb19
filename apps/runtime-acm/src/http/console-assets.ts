import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where the web console lives under the context path. */
export const CONSOLE_PATH = 'console';

/**
 * The web console's built files (`npm run build` writes them to dist/console): next to the compiled runtime
 * when it runs from dist, under dist when it runs from the sources (the tests' in-process runtime).
 */
export function consoleDirectory(): string | null {
  const candidates = [join(__dirname, '../../../../console'), join(__dirname, '../../../../dist/console')];
  return candidates.find((candidate) => existsSync(join(candidate, 'index.html'))) ?? null;
}
