import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { chromium } from 'playwright-core';
import request from 'supertest';
import { EXAMPLE_COMPOSITION_ID } from '../../apps/runtime-acm/src/http/dto/examples';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { BASE, PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

/** Generous for a loaded machine: each wait ends as soon as its element or answer is there. */
const UI_TIMEOUT_MS = 60_000;
/** Bounds for a loaded machine (the embedded runtime starts in seconds on an idle one). */
const START_TIMEOUT_MS = 180_000;
const RUN_TIMEOUT_MS = 300_000;

/** Swagger UI's id of an operation's block: the tag with `_` for spaces, then the operationId. */
function block(page: Page, tag: string, operationId: string) {
  return page.locator(`#operations-${tag.replace(/ /g, '_')}-${operationId}`);
}

/**
 * Opens an operation, presses "Try it out", fills its path parameters, lets `edit` change the example body, presses
 * "Execute" and returns the answer as the browser received it, once Swagger UI shows it.
 */
async function tryItOut(
  page: Page,
  tag: string,
  operationId: string,
  options: { path?: Record<string, string>; edit?: (body: string) => string } = {},
): Promise<{ status: number; body: unknown; shown: string }> {
  const operation = block(page, tag, operationId);
  await operation.locator('.opblock-summary').first().click();
  await operation.locator('button.try-out__btn').click();
  for (const [name, value] of Object.entries(options.path ?? {})) {
    await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
  }
  if (options.edit !== undefined) {
    const body = operation.locator('textarea.body-param__text');
    await body.fill(options.edit(await body.inputValue()));
  }
  const [answer] = await Promise.all([
    page.waitForResponse((response: Response) => response.url().includes('/onap/policy/clamp/acm/v2/'), {
      timeout: UI_TIMEOUT_MS,
    }),
    operation.locator('button.execute').click(),
  ]);
  const shown = operation.locator('.live-responses-table tbody td.response-col_status').first();
  await shown.waitFor({ timeout: UI_TIMEOUT_MS });
  const text = await answer.text();
  const result = {
    status: answer.status(),
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
    shown: (await shown.innerText()).trim(),
  };
  await operation.locator('.opblock-summary').first().click();
  return result;
}

describe('Swagger UI "Try it out" with the examples of the OpenAPI document', () => {
  let runtime: EmbeddedRuntime;
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof request.agent>;
  /** What Chromium refused under the page's Content-Security-Policy, as it reports it on the console. */
  const refusedByPolicy: string[] = [];
  let pageHeaders: Record<string, string> = {};

  beforeAll(async () => {
    const executablePath = execFileSync('bash', [join(REPO_ROOT, 'scripts/ensure-chromium.sh')], {
      encoding: 'utf8',
    }).trim();
    runtime = await startEmbeddedRuntime('swagger-ui');
    api = request.agent(`http://127.0.0.1:${runtime.port}`).auth(USER, PASSWORD);
    // Root runs Chromium only without its sandbox (CI runs as root).
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    // The page itself is behind HTTP Basic, as every path is: the credentials a user types at the browser's prompt.
    page = await browser.newPage({ httpCredentials: { username: USER, password: PASSWORD } });
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) {
        refusedByPolicy.push(message.text());
      }
    });
    const opened = await page.goto(`http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm/swagger-ui`);
    pageHeaders = opened?.headers() ?? {};
    await page.locator('.scheme-container button.authorize').click();
    const dialog = page.locator('.modal-ux');
    // The dialog offers HTTP Basic and a bearer token; the test logs in with Basic.
    const basic = dialog.locator('.auth-container').filter({ hasText: 'Basic' });
    await basic.locator('input[type=text]').fill(USER);
    await basic.locator('input[type=password]').fill(PASSWORD);
    await basic.locator('.auth-btn-wrapper button.authorize').click();
    await basic.locator('button.btn-done').click();
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
  });

  it(
    'serves the committed document',
    async () => {
      const served = await api.get('/onap/policy/clamp/acm/v3/api-docs').expect(200);
      const committed = JSON.parse(readFileSync(join(REPO_ROOT, 'openapi/openapi.json'), 'utf8')) as unknown;
      expect(served.body).toEqual(committed);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "shows the runtime's own version beside the ONAP API version it implements",
    async () => {
      const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
      const info = page.locator('.information-container');
      await info.getByText(`acm-runtime ${manifest.version}, implementing ONAP CLAMP ACM API 1.0.0`).waitFor();
      // Swagger UI's version badge is the API's: ONAP's.
      expect((await info.locator('.title .version').first().innerText()).trim()).toBe('1.0.0');
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'commissions, primes, instantiates and deploys with the examples as they are',
    async () => {
      const definitionTag = 'Automation Composition Definition';
      const instanceTag = 'Automation Composition Instance';

      const commissioned = await tryItOut(page, definitionTag, 'createCompositionDefinitions');
      expect([commissioned.status, commissioned.shown]).toEqual([201, '201']);
      const { compositionId } = commissioned.body as { compositionId: string };

      const primed = await tryItOut(page, definitionTag, 'compositionDefinitionPriming', { path: { compositionId } });
      expect([primed.status, primed.shown]).toEqual([202, '202']);
      await eventually(
        'the definition to be PRIMED',
        async () =>
          (await api.get(`${BASE}/compositions/${compositionId}`)).body.state === 'PRIMED' ? true : undefined,
        3000,
      );

      // The example stands for the id a commissioning answers: the one thing a user changes.
      const created = await tryItOut(page, instanceTag, 'createCompositionInstance', {
        path: { compositionId },
        edit: (body) => body.split(EXAMPLE_COMPOSITION_ID).join(compositionId),
      });
      expect([created.status, created.shown]).toEqual([201, '201']);
      const { instanceId } = created.body as { instanceId: string };

      const deployed = await tryItOut(page, instanceTag, 'compositionInstanceState', {
        path: { compositionId, instanceId },
      });
      expect([deployed.status, deployed.shown]).toEqual([202, '202']);
      await eventually(
        'the instance to be DEPLOYED',
        async () => {
          const { body } = await api.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`);
          return body.deployState === 'DEPLOYED' && body.stateChangeResult === 'NO_ERROR' ? true : undefined;
        },
        3000,
      );

      const shown = await tryItOut(page, instanceTag, 'getCompositionInstance', {
        path: { compositionId, instanceId },
      });
      expect([shown.status, shown.body]).toEqual([
        200,
        expect.objectContaining({ instanceId, deployState: 'DEPLOYED' }),
      ]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "answers an unknown definition with 404 and ONAP's error body",
    async () => {
      const unknown = '00000000-0000-4000-8000-000000000404';
      const answer = await tryItOut(page, 'Automation Composition Definition', 'getCompositionDefinition', {
        path: { compositionId: unknown },
      });
      expect([answer.status, answer.shown]).toEqual([404, '404']);
      expect(answer.body).toEqual({ errorDetails: expect.stringContaining(unknown) });
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'ran all of the above under its Content-Security-Policy, without one refusal',
    () => {
      expect(pageHeaders['content-security-policy']).toContain("script-src 'self';");
      expect(pageHeaders['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(pageHeaders['x-frame-options']).toBe('DENY');
      expect(pageHeaders['x-content-type-options']).toBe('nosniff');
      expect(refusedByPolicy).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
