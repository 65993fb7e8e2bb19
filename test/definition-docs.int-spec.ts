import { randomUUID } from 'node:crypto';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime } from './support/runtime-harness';

const TEMPLATE = readRepoFile('tosca/examples/sim-typed-properties.yaml');
const PAGE = readRepoFile('tosca/examples/docs/sim-typed-properties.md');

describe('GET .../compositions/{id}/docs (PostgreSQL)', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime();
  });

  afterAll(async () => {
    await runtime.close();
  });

  async function commission(template: string): Promise<string> {
    const response = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(template)
      .expect(201);
    return (response.body as { compositionId: string }).compositionId;
  }

  it('answers Markdown, the same page npm run docs:tosca writes from the file', async () => {
    const compositionId = await commission(TEMPLATE);

    const response = await runtime.http.get(`${BASE}/compositions/${compositionId}/docs`).expect(200);

    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(response.text).toBe(PAGE);
  });

  it('answers HTML with Accept: text/html, escaping template text', async () => {
    const hostile = TEMPLATE.replace(
      'description: How many copies the element runs.',
      'description: "<script>alert(1)</script> [x](javascript:alert(1))"',
    ).replace('name: acm.example.SimTypedProperties', `name: acm.test.docs.${randomUUID().slice(0, 8)}`);
    const compositionId = await commission(hostile);

    const response = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/docs`)
      .set('Accept', 'text/html')
      .expect(200);

    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.text).toContain('<h1>acm.example.typed.Composition 1.0.0</h1>');
    expect(response.text).toContain('<th>Sensitive</th>');
    expect(response.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; [x](javascript:alert(1))');
    expect(response.text).not.toMatch(/<script|href="javascript/i);
  });

  it('answers 404 with ONAP errorDetails for an unknown definition, 400 for a malformed id', async () => {
    const unknown = randomUUID();

    const missing = await runtime.http.get(`${BASE}/compositions/${unknown}/docs`).expect(404);
    const malformed = await runtime.http.get(`${BASE}/compositions/not-a-uuid/docs`).expect(400);

    expect(missing.body).toEqual({ errorDetails: `Automation composition definition ${unknown} not found` });
    expect((malformed.body as { errorDetails: string }).errorDetails).toContain('compositionId');
  });

  it('documents the docs route and the optional dryRun parameter in the OpenAPI document', async () => {
    const response = await runtime.http.get('/onap/policy/clamp/acm/v3/api-docs').expect(200);
    const paths = (response.body as { paths: Record<string, Record<string, { parameters?: unknown[] }>> }).paths;

    expect(paths['/v2/compositions/{compositionId}/docs']?.['get']).toBeDefined();
    expect(paths['/v2/compositions/{compositionId}/instances']?.['post']?.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'dryRun', in: 'query', required: false })]),
    );
  });
});
