import { writeFileSync } from 'node:fs';
import { CONTEXT_PATH } from '../bootstrap';
import { standaloneOpenApiDocument } from '../http/openapi-standalone';
import { runCli } from './run-cli';

/** `npm run openapi`: writes the runtime's OpenAPI document (as /v3/api-docs serves it) to the file given. */
async function main(args: readonly string[]): Promise<number> {
  const [file] = args;
  if (file === undefined || args.length !== 1) {
    process.stderr.write('usage: node dist/apps/runtime-acm/src/cli/openapi.js FILE.json\n');
    return 2;
  }
  const document = await standaloneOpenApiDocument(CONTEXT_PATH);
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return 0;
}

runCli(main);
