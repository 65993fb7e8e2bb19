import { readFileSync, writeFileSync } from 'node:fs';
import { formatProblems, parseServiceTemplate, renderCompositionDocs } from '@acm/tosca';
import { loadRuntimeConfig } from '../config/runtime.config';
import { runCli } from './run-cli';

const USAGE = 'usage: npm run docs:tosca -- FILE [--out PAGE.md]';

/**
 * `npm run docs:tosca -- FILE [--out PAGE.md]`: the Markdown page `GET .../compositions/{id}/docs` would answer for
 * the service template in FILE (JSON or YAML), without a running runtime. Writes to standard output unless --out.
 */
function main(args: readonly string[]): number {
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? args[outAt + 1] : undefined;
  const files = args.filter((arg, position) => arg !== '--out' && (outAt < 0 || position !== outAt + 1));
  const [file] = files;
  if (file === undefined || files.length !== 1 || (outAt >= 0 && out === undefined)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadRuntimeConfig();
  const parsed = parseServiceTemplate(readFileSync(file, 'utf8'));
  const result = parsed.ok
    ? renderCompositionDocs(parsed.template, {
        elementTypeName: config.toscaElementName,
        compositionTypeName: config.toscaCompositionName,
      })
    : parsed;
  if (!result.ok) {
    process.stderr.write(`${file} is not a commissionable composition:\n${formatProblems(result.problems)}\n`);
    return 1;
  }
  if (out === undefined) {
    process.stdout.write(result.markdown);
  } else {
    writeFileSync(out, result.markdown);
  }
  return 0;
}

runCli(main);
