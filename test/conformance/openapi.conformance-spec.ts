import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { onapFile } from './onap-files';

interface Document {
  paths: Record<string, Record<string, { operationId?: string }>>;
  components: { schemas: Record<string, unknown> };
}

const METHODS = ['get', 'put', 'post', 'delete'];

function operationsOf(document: Document): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map(
      (method) => `${method.toUpperCase()} ${path} ${item[method]?.operationId}`,
    ),
  );
}

/** ONAP's OpenAPI document of the runtime (paths under its server, /v2 in ours) against the one we serve. */
describe("ONAP's OpenAPI document", () => {
  const onap = load(onapFile('runtime-openapi/openapi.yaml')) as Document;
  const ours = JSON.parse(readFileSync(join(__dirname, '../../openapi/openapi.json'), 'utf8')) as Document;

  it('has each of its operations in ours, at the same path and method, with the same operationId', () => {
    const expected = operationsOf(onap).map((operation) => operation.replace(' /', ' /v2/'));
    expect(expected).toHaveLength(20);
    expect(operationsOf(ours)).toEqual(expect.arrayContaining(expected));
  });

  it('has each of its schemas in ours, by name, and ours describe their properties', () => {
    const names = Object.keys(onap.components.schemas);
    expect(names).toHaveLength(13);
    for (const name of names) {
      expect([name, ours.components.schemas[name]]).toEqual([
        name,
        expect.objectContaining({ properties: expect.any(Object) }),
      ]);
    }
  });
});
