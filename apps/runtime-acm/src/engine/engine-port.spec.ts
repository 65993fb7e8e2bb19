import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ENGINE = __dirname;
const SESSION_PORT = join(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'libs',
  'domain',
  'src',
  'ports',
  'operation-session.port.ts',
);

/** The engine's production sources (specs and test support left out). */
function engineSources(): Array<{ file: string; text: string }> {
  return readdirSync(ENGINE)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => ({ file, text: readFileSync(join(ENGINE, file), 'utf8') }));
}

/** The method names of an interface declared in `source`, one per line as the project's formatting writes them. */
function methodsOf(source: string, name: string): string[] {
  const start = source.indexOf(`export interface ${name} {`);
  const end = source.indexOf('\n}\n', start);
  return [...source.slice(start, end).matchAll(/^ {2}(\w+)\(/gm)].map((match) => match[1]!);
}

describe("the engine's port", () => {
  it('is the operation session and the supervision queries: no engine file names the Store or the unit of work', () => {
    const offending = engineSources().flatMap(({ file, text }) =>
      [/\bStore\b/, /\bUnitOfWork\b/, /\binstanceof\b/]
        .filter((pattern) => pattern.test(text))
        .map((p) => `${file}: ${p}`),
    );
    expect(offending).toEqual([]);
  });

  it('has at most 15 methods', () => {
    const methods = methodsOf(readFileSync(SESSION_PORT, 'utf8'), 'OperationSession');
    expect(methods).toContain('lockInstance');
    expect(methods.length).toBeLessThanOrEqual(15);
  });
});
