import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planDiffText, planTable, useColours } from './plan-view';
import { buildProgram } from './program';

const ANSWER = {
  planId: 'ab'.repeat(24),
  order: 'UPDATE',
  summary: { create: 1, update: 1, replace: 1, delete: 1, unchanged: 2 },
  changes: [
    {
      elementId: 'e-1',
      name: 'Web',
      action: 'create',
      changes: [{ path: 'port', new: 80, text: 'port: (none) → 80' }],
    },
    {
      elementId: 'e-2',
      name: 'Db',
      action: 'update',
      changes: [
        { path: 'size', old: 1, new: 2, text: 'size: 1 → 2' },
        { path: 'password', old: '******', new: '******', sensitive: true, text: 'password: ****** → ******' },
      ],
    },
    { elementId: 'e-3', name: 'Cache', action: 'unchanged', changes: [] },
    {
      elementId: 'e-4',
      name: 'Disk',
      action: 'replace',
      forcedBy: ['image'],
      changes: [{ path: 'image', old: 'a', new: 'b', text: 'image: "a" → "b"' }],
    },
    {
      elementId: 'e-5',
      name: 'Old',
      action: 'delete',
      changes: [],
      definition: undefined,
    },
    {
      elementId: 'e-6',
      name: 'Moved',
      action: 'update',
      definition: { old: { name: 'Moved', version: '1.0.0' }, new: { name: 'Moved', version: '2.0.0' } },
      changes: [],
    },
  ],
};

describe('planDiffText', () => {
  it('prints each changed element as tofu plan does, then the summary line and the planId', () => {
    expect(planDiffText(ANSWER, false).split('\n')).toEqual([
      '  + Web (e-1)',
      '      port: (none) → 80',
      '  ~ Db (e-2)',
      '      size: 1 → 2',
      '      password: ****** → ******',
      '-/+ Disk (e-4) # forced by image',
      '      image: "a" → "b"',
      '  - Old (e-5)',
      '  ~ Moved (e-6)',
      '      version: 1.0.0 → 2.0.0',
      '',
      'Plan: 1 to create, 1 to update, 1 to replace, 1 to delete.',
      `planId: ${'ab'.repeat(24)}`,
    ]);
  });

  it('colours the marks only when asked, and says when nothing changes', () => {
    const coloured = planDiffText(ANSWER, true);
    expect(coloured).toContain('\u001b[32m  +\u001b[0m Web');
    expect(coloured).toContain('\u001b[31m  -\u001b[0m Old');
    expect(planDiffText(ANSWER, false)).not.toContain('\u001b[');
    const nothing = planDiffText({ planId: 'x', summary: { unchanged: 1 }, changes: [] }, false);
    expect(nothing.split('\n')[0]).toBe('No changes to any element.');
    expect(nothing).toContain('Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.');
  });
});

describe('planTable', () => {
  const step = (number: number, elements: readonly Record<string, unknown>[]): Record<string, unknown> => ({
    step: number,
    kind: 'PHASE_STARTED',
    phase: number - 1,
    elements,
  });

  it('shows what each reference reads, by element and property, in a READS column', () => {
    const table = planTable({
      steps: [
        step(1, [{ elementId: 'd', name: 'Db', waitsFor: [] }]),
        step(2, [
          {
            elementId: 'w',
            name: 'Web',
            waitsFor: ['d'],
            references: { baseUrl: '(known after deploy)', replicas: 3 },
          },
        ]),
      ],
    });
    expect(table.headers).toEqual(['STEP', 'KIND', 'PHASE', 'ELEMENTS', 'WAITS FOR', 'READS']);
    expect(table.rows).toEqual([
      ['1', 'PHASE_STARTED', '0', 'Db', '', ''],
      ['2', 'PHASE_STARTED', '1', 'Web', 'Db', 'Web.baseUrl ← (known after deploy); Web.replicas ← 3'],
    ]);
  });

  it('has no READS column when no element reads another', () => {
    const table = planTable({ steps: [step(1, [{ elementId: 'd', name: 'Db', waitsFor: [] }])] });
    expect(table.headers).toEqual(['STEP', 'KIND', 'PHASE', 'ELEMENTS', 'WAITS FOR']);
    expect(table.rows).toEqual([['1', 'PHASE_STARTED', '0', 'Db', '']]);
  });
});

describe('useColours', () => {
  it('is on for a terminal only, and off when NO_COLOR is set', () => {
    expect(useColours(true, {})).toBe(true);
    expect(useColours(false, {})).toBe(false);
    expect(useColours(true, { NO_COLOR: '1' })).toBe(false);
  });
});

describe('acmctl plan --file', () => {
  let server: Server;
  let url: string;
  let dir: string;
  const received: Array<{ method: string; path: string; body: unknown }> = [];
  const answer = { ...ANSWER, steps: [{ step: 1, kind: 'PHASE_STARTED', phase: 0, elements: [] }] };

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          path: request.url ?? '',
          body: text === '' ? null : JSON.parse(text),
        });
        response.setHeader('Content-Type', 'application/json');
        response.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'acmctl-plan-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function run(args: string[], isTerminal: boolean): Promise<string> {
    const printed: string[] = [];
    const program = buildProgram({ env: { ACM_URL: url, HOME: dir }, isTerminal, out: (text) => printed.push(text) });
    await program.parseAsync(['node', 'acmctl', ...args]);
    return printed.join('\n');
  }

  it('posts the order with the file as its instance body and prints the steps, the diff and the planId', async () => {
    const file = join(dir, 'body.yaml');
    writeFileSync(file, 'name: I\nversion: 1.0.0\nelements: {}\n');
    received.length = 0;

    const printed = await run(['plan', 'c-1', 'i-1', '--order', 'MIGRATE', '--to', 'c-2', '--file', file], false);

    expect(received).toEqual([
      {
        method: 'POST',
        path: '/onap/policy/clamp/acm/v2/compositions/c-1/instances/i-1/plan',
        body: {
          order: 'MIGRATE',
          instance: {
            name: 'I',
            version: '1.0.0',
            elements: {},
            compositionId: 'c-1',
            instanceId: 'i-1',
            compositionTargetId: 'c-2',
          },
        },
      },
    ]);
    expect(printed).toContain('PHASE_STARTED');
    expect(printed).toContain('  ~ Db (e-2)\n      size: 1 → 2');
    expect(printed).toContain('Plan: 1 to create, 1 to update, 1 to replace, 1 to delete.');
    expect(printed.split('\n').at(-1)).toBe(`planId: ${'ab'.repeat(24)}`);
    expect(printed).not.toContain('\u001b[');
    expect(await run(['plan', 'c-1', 'i-1', '--order', 'DEPLOY', '--diff'], true)).toContain(
      '\u001b[33m  ~\u001b[0m Db',
    );
    expect(received.at(-1)?.body).toEqual({ order: 'DEPLOY' });
  });

  it('plans an UPDATE with --diff and no file with the instance as it is now', async () => {
    received.length = 0;
    await run(['plan', 'c-1', 'i-1', '--order', 'UPDATE', '--diff'], false);
    expect(received.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /onap/policy/clamp/acm/v2/compositions/c-1/instances/i-1',
      'POST /onap/policy/clamp/acm/v2/compositions/c-1/instances/i-1/plan',
    ]);
    // The stub answers every request alike: the instance read is the plan answer, sent back as the body.
    expect(received[1]?.body).toEqual({
      order: 'UPDATE',
      instance: { ...answer, compositionId: 'c-1', instanceId: 'i-1' },
    });
  });

  it('answers JSON with -o json, planId included', async () => {
    const printed = await run(['-o', 'json', 'plan', 'c-1', 'i-1', '--order', 'DELETE', '--diff'], false);
    expect((JSON.parse(printed) as { planId: string }).planId).toBe('ab'.repeat(24));
  });
});
