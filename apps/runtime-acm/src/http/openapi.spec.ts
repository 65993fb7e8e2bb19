import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { CONTEXT_PATH } from '../bootstrap';
import { standaloneOpenApiDocument } from './openapi-standalone';

const ROOT = join(__dirname, '../../../..');
const DOCUMENT = join(ROOT, 'openapi/openapi.json');
const COLLECTION = join(ROOT, 'postman/acm-runtime.openapi.postman_collection.json');
const METHODS = ['get', 'put', 'post', 'delete'] as const;

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

function operations(document: OpenAPIObject): Array<{ name: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation === undefined ? [] : [{ name: `${method.toUpperCase()} ${path}`, operation }];
    }),
  );
}

describe('the OpenAPI document', () => {
  let built: OpenAPIObject;

  beforeAll(async () => {
    built = await standaloneOpenApiDocument(CONTEXT_PATH);
  });

  it('is committed as the controllers describe it (else run npm run openapi)', () => {
    expect(JSON.parse(readFileSync(DOCUMENT, 'utf8'))).toEqual(JSON.parse(JSON.stringify(built)));
  });

  it('gives every operation an id, a summary, a tag, the request id header and its refusals', () => {
    const problems = operations(built).flatMap(({ name, operation }) => {
      const parameters = (operation.parameters ?? []).map((parameter) => ('name' in parameter ? parameter.name : ''));
      const statuses = Object.keys(operation.responses);
      return [
        operation.operationId === undefined ? `${name}: no operationId` : [],
        operation.summary === undefined ? `${name}: no summary` : [],
        (operation.tags ?? []).length === 1 ? [] : `${name}: not one tag`,
        parameters.includes('X-ONAP-RequestID') ? [] : `${name}: no X-ONAP-RequestID`,
        statuses.includes('401') ? [] : `${name}: no 401`,
        statuses.some((status) => status.startsWith('2')) ? [] : `${name}: no 2xx`,
      ].flat();
    });
    expect(problems).toEqual([]);
  });

  it('reads every body as JSON or YAML, with an example, and refuses what it cannot read', () => {
    const withBody = operations(built).filter(({ operation }) => operation.requestBody !== undefined);
    expect(withBody.map(({ name }) => name).sort()).toEqual([
      'POST /v2/approvals/{approvalId}/reject',
      'POST /v2/compositions',
      'POST /v2/compositions/{compositionId}/instances',
      'POST /v2/compositions/{compositionId}/instances/{instanceId}/elements/{elementId}/signal',
      'POST /v2/compositions/{compositionId}/instances/{instanceId}/plan',
      'POST /v2/rollouts',
      'POST /v2/subscriptions',
      'POST /v2/windows',
      'PUT /v2/compositions/{compositionId}',
      'PUT /v2/compositions/{compositionId}/instances/{instanceId}',
    ]);
    for (const { operation } of withBody) {
      const body = operation.requestBody as { content: Record<string, { examples?: object }> };
      expect(Object.keys(body.content)).toEqual(['application/json', 'application/yaml']);
      expect(Object.keys(body.content['application/json']?.examples ?? {}).length).toBeGreaterThan(0);
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
  });

  it('answers every refusal with the SimpleResponse schema and every object answer in JSON and YAML', () => {
    for (const { name, operation } of operations(built)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const content = (response !== undefined && 'content' in response ? response.content : undefined) ?? {};
        if (status.startsWith('4')) {
          expect([name, status, content['application/json']?.schema]).toEqual([
            name,
            status,
            { $ref: '#/components/schemas/SimpleResponse' },
          ]);
        } else if (
          content['application/json'] !== undefined &&
          !('$ref' in (content['application/json'].schema ?? {}))
        ) {
          expect([name, status, content['application/yaml']]).toEqual([name, status, content['application/json']]);
        }
      }
    }
  });

  it('has the generated Postman collection committed as npm run openapi writes it', () => {
    const folder = mkdtempSync(join(tmpdir(), 'acm-postman-'));
    try {
      const fresh = join(folder, 'collection.json');
      execFileSync(process.execPath, [join(ROOT, 'scripts/openapi-postman.js'), DOCUMENT, fresh]);
      expect(readFileSync(COLLECTION, 'utf8')).toBe(readFileSync(fresh, 'utf8'));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
