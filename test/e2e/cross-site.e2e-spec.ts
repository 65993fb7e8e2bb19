import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import request from 'supertest';
import { launchChromium } from '../support/browser';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { BASE, PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const CONTEXT = '/onap/policy/clamp/acm';
const WAIT = { timeout: 60_000 };
const STATE_CHANGING = ['post', 'put', 'delete', 'patch'] as const;

/** What one attempt of the hostile page came to, as the page saw it (an opaque answer, or the browser's refusal). */
interface Attempt {
  readonly method: string;
  readonly url: string;
  readonly how: string;
  readonly outcome: string;
}

/** REST answers of the state-changing methods, by status, from the runtime's own request metrics. */
function stateChangingAnswers(scrape: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [, labels, value] of scrape.matchAll(/^http_server_requests_seconds_count\{(.*)\} (\d+)$/gm)) {
    const method = /method="([A-Z]+)"/.exec(labels ?? '')?.[1] ?? '';
    const status = /status="(\d+)"/.exec(labels ?? '')?.[1] ?? '';
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) {
      counts.set(status, (counts.get(status) ?? 0) + Number(value));
    }
  }
  return counts;
}

/**
 * The hostile page's script: every state-changing route, by every means a page of another site has without a
 * preflight — an HTML form post in each encoding, and fetch(..., {mode: 'no-cors', credentials: 'include'}) with no
 * body and with each body a page may send — and, for PUT and DELETE, fetch in both modes (refused by the browser
 * itself, or after a preflight the runtime does not grant). A page script is a string: the test's own compilation
 * has no DOM types.
 */
function attackScript(targets: ReadonlyArray<{ method: string; url: string }>): string {
  return `(async () => {
    const targets = ${JSON.stringify(targets)};
    const attempts = [];
    const attempt = async (method, url, how, init) => {
      try {
        const answer = await fetch(url, { method, credentials: 'include', ...init });
        attempts.push({ method, url, how, outcome: 'sent, ' + answer.type });
      } catch (error) {
        attempts.push({ method, url, how, outcome: 'refused by the browser' });
      }
    };
    let frame = 0;
    for (const { method, url } of targets) {
      if (method !== 'POST') {
        await attempt(method, url, 'fetch no-cors', { mode: 'no-cors' });
        await attempt(method, url, 'fetch cors, JSON', {
          mode: 'cors',
          headers: { 'Content-Type': 'application/json' },
          body: method === 'DELETE' ? undefined : '{"deployOrder":"DEPLOY"}',
        });
        continue;
      }
      for (const enctype of ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']) {
        const name = 'target' + frame++;
        const iframe = document.createElement('iframe');
        iframe.name = name;
        document.body.append(iframe);
        const form = document.createElement('form');
        Object.assign(form, { method: 'POST', action: url, enctype, target: name });
        const field = document.createElement('input');
        // text/plain sends name=value: this makes the body {"status":"SUCCESS","id":"csrf","x":"="}.
        Object.assign(field, { name: '{"status":"SUCCESS","id":"csrf","x":"', value: '"}' });
        form.append(field);
        document.body.append(form);
        form.submit();
        attempts.push({ method, url, how: 'form ' + enctype, outcome: 'submitted' });
      }
      const form = new FormData();
      form.append('primeOrder', 'PRIME');
      const bodies = {
        'no body': undefined,
        'text/plain JSON': '{"status":"SUCCESS","id":"csrf","deployOrder":"DEPLOY"}',
        'urlencoded': new URLSearchParams({ deployOrder: 'DEPLOY' }),
        'multipart': form,
        'Blob typed application/json': new Blob(['{"status":"SUCCESS","id":"csrf"}'], { type: 'application/json' }),
      };
      for (const [what, body] of Object.entries(bodies)) {
        await attempt(method, url, 'fetch no-cors, ' + what, { mode: 'no-cors', body });
      }
    }
    return attempts;
  })()`;
}

/**
 * A page on another origin (another port of 127.0.0.1) tries every state-changing route of the OpenAPI document
 * against the runtime as the embedded default runs it, in Debian's Chromium whose HTTP Basic credentials for the
 * runtime are cached (the operator used the console just before); nothing may change.
 */
describe('a page of another site against the runtime, with the credentials cached in the browser', () => {
  let runtime: EmbeddedRuntime;
  let attacker: Server;
  let browser: Browser;
  let context: BrowserContext;
  let runtimeUrl: string;
  const api = () => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const ids = { compositionId: '', instanceId: '', elementId: '', participantId: '' };

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('cross-site-runtime');
    runtimeUrl = `http://127.0.0.1:${runtime.port}`;
    attacker = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>A page</title><body></body>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    context = await browser.newContext({ httpCredentials: { username: USER, password: PASSWORD } });

    // A running deploy: Database deployed, the approval waiting for its signal, Backend held behind it.
    const commissioned = await api()
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-approval.yaml'))
      .expect(201);
    ids.compositionId = (commissioned.body as { compositionId: string }).compositionId;
    await api().put(`${BASE}/compositions/${ids.compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('the definition PRIMED', async () =>
      (await api().get(`${BASE}/compositions/${ids.compositionId}`)).body.state === 'PRIMED' ? true : undefined,
    );
    const created = await api()
      .post(`${BASE}/compositions/${ids.compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(
        readRepoFile('tosca/examples/instances/sim-approval.json').replace(
          /COMPOSITIONIDPLACEHOLDER/g,
          ids.compositionId,
        ),
      )
      .expect(201);
    ids.instanceId = (created.body as { instanceId: string }).instanceId;
    const instancePath = `${BASE}/compositions/${ids.compositionId}/instances/${ids.instanceId}`;
    await api().put(instancePath).send({ deployOrder: 'DEPLOY' }).expect(202);
    ids.elementId = await eventually('the approval waiting for its signal', async () => {
      const { body } = await api().get(instancePath);
      const elements = Object.entries(
        (body as { elements: Record<string, { outProperties?: { waitCondition?: { outcome?: string } } }> }).elements,
      );
      return elements.find(([, element]) => element.outProperties?.waitCondition?.outcome === 'WAITING')?.[0];
    });
    const participants = (await api().get(`${BASE}/participants`).expect(200)).body as Array<{ participantId: string }>;
    ids.participantId = participants[0]!.participantId;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await runtime?.stop();
  });

  /** What an order would change: every definition's and instance's state, and the running operation's control. */
  async function runtimeState(): Promise<unknown> {
    const definitions = (await api().get(`${BASE}/compositions`).expect(200)).body as {
      service_templates: Array<{ metadata?: { compositionId?: string }; name: string }>;
    };
    const instances = (await api().get(`${BASE}/instances`).expect(200)).body as {
      automationCompositionList: Array<Record<string, unknown>>;
    };
    const definition = (await api().get(`${BASE}/compositions/${ids.compositionId}`).expect(200)).body as {
      state: string;
      stateChangeResult: string;
    };
    const control = (
      await api().get(`${BASE}/compositions/${ids.compositionId}/instances/${ids.instanceId}/control`).expect(200)
    ).body as { running: { operationId: string; order: string; paused: boolean } | null };
    return {
      definitions: definitions.service_templates.map((template) => template.name),
      definition: [definition.state, definition.stateChangeResult],
      instances: instances.automationCompositionList.map((instance) => [
        instance['instanceId'],
        instance['deployState'],
        instance['lockState'],
        instance['stateChangeResult'],
        Object.values(instance['elements'] as Record<string, { deployState: string }>).map((e) => e.deployState),
      ]),
      running: control.running && [control.running.operationId, control.running.order, control.running.paused],
    };
  }

  it('changes nothing: every form post and no-cors fetch is refused (415), PUT and DELETE never leave the browser', async () => {
    const document = (await api().get(`${CONTEXT}/v3/api-docs`).expect(200)).body as {
      paths: Record<string, Partial<Record<(typeof STATE_CHANGING)[number], unknown>>>;
    };
    const targets = Object.entries(document.paths).flatMap(([path, operations]) =>
      STATE_CHANGING.filter((method) => operations[method] !== undefined).map((method) => ({
        method: method.toUpperCase(),
        url: runtimeUrl + CONTEXT + path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name as keyof typeof ids]),
      })),
    );
    const posts = targets.filter((target) => target.method === 'POST');
    // Every POST of the API (commission, create, rollback, cancel, pause, resume, signal...) and its PUTs and DELETEs.
    expect(posts.length).toBeGreaterThanOrEqual(8);
    expect(targets.length - posts.length).toBeGreaterThanOrEqual(8);
    expect(targets.every((target) => !target.url.includes('{'))).toBe(true);

    // The operator used the console: the browser holds the runtime's credentials and sends them again unasked.
    const operator = await context.newPage();
    await operator.goto(`${runtimeUrl}${CONTEXT}/console/`);
    await operator.locator('[data-live="live"]').waitFor(WAIT);
    const before = await runtimeState();
    const answersBefore = stateChangingAnswers((await api().get(`${CONTEXT}/actuator/prometheus`).expect(200)).text);

    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    const attempts = await page.evaluate<Attempt[]>(attackScript(targets));

    // Each POST, 3 forms and 5 fetches, reaches the runtime with the cached credentials: all answered, all refused.
    const expectedAnswers = posts.length * 8;
    const grown = await eventually(
      'every POST of the page to be answered',
      async () => {
        const now = stateChangingAnswers((await api().get(`${CONTEXT}/actuator/prometheus`).expect(200)).text);
        const delta = [...now]
          .map(([status, count]): [string, number] => [status, count - (answersBefore.get(status) ?? 0)])
          .filter(([status, count]) => count > 0 && status !== '401');
        return delta.reduce((sum, [, count]) => sum + count, 0) >= expectedAnswers ? delta : undefined;
      },
      3000,
    );
    // Nothing the page sent was accepted: besides the browser's own 401 round trips, only 415.
    expect(grown).toEqual([['415', expectedAnswers]]);
    expect(
      attempts.filter((entry) => entry.method !== 'POST').map((entry) => [entry.method, entry.how, entry.outcome]),
    ).toEqual(
      targets
        .filter((target) => target.method !== 'POST')
        .flatMap((target) => [
          [target.method, 'fetch no-cors', 'refused by the browser'],
          [target.method, 'fetch cors, JSON', 'refused by the browser'],
        ]),
    );
    expect(await runtimeState()).toEqual(before);
  }, 180_000);
});
