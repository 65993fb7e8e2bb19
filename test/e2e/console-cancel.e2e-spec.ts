import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { artifactPath, launchChromium } from '../support/browser';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const WAIT = { timeout: 60_000 };
const API = '/onap/policy/clamp/acm/v2';
const SIM_PARAMETERS = '/onap/policy/simparticipant/v2/parameters';

/**
 * A cancelled operation in the web console (Debian's Chromium, the runtime as `npm start` runs it): the deploy is
 * cancelled over REST while its elements are still working, and the page, fed by the pushed events only, shows the
 * operation CANCELLED, not RUNNING.
 */
describe('the web console shows a cancelled operation', () => {
  let runtime: EmbeddedRuntime;
  let browser: Browser;
  let page: Page;
  let api: request.Agent;

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('console-cancel-runtime');
    api = request.agent(`http://127.0.0.1:${runtime.port}`).auth(USER, PASSWORD);
    browser = await launchChromium();
    const context = await browser.newContext({
      httpCredentials: { username: USER, password: PASSWORD },
      viewport: { width: 1400, height: 1000 },
    });
    page = await context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
  });

  it('shows the DEPLOY CANCELLED once the running operation is cancelled', async () => {
    const commissioned = await api
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readFileSync(join(REPO_ROOT, 'tosca/examples/sim-three-phase.yaml'), 'utf8'))
      .expect(201);
    const compositionId = (commissioned.body as { compositionId: string }).compositionId;
    await api.put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('PRIMED', async () => {
      const got = await api.get(`${API}/compositions/${compositionId}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    const body = readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-three-phase.json'), 'utf8').replace(
      /COMPOSITIONIDPLACEHOLDER/g,
      compositionId,
    );
    const created = await api
      .post(`${API}/compositions/${compositionId}/instances`)
      .send(JSON.parse(body) as object)
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const instancePath = `${API}/compositions/${compositionId}/instances/${instanceId}`;

    // The simulator's elements take long enough for the cancel to land while phase 0 runs.
    await api.put(SIM_PARAMETERS).send({ deployTimerMs: 30_000 }).expect(200);
    try {
      await page.goto(
        `http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm/console/#/instances/${compositionId}/${instanceId}`,
      );
      await page.locator('[data-live="live"]').waitFor(WAIT);
      await page.locator('g.node').first().waitFor(WAIT);

      await api.put(instancePath).send({ deployOrder: 'DEPLOY' }).expect(202);
      const operation = page.locator('[data-operation="DEPLOY"]');
      await operation.locator('.badge', { hasText: /^RUNNING$/ }).waitFor(WAIT);

      await api.post(`${instancePath}/cancel`).expect(202);
      await operation.locator('.badge', { hasText: /^CANCELLED$/ }).waitFor(WAIT);
      expect(await operation.locator('.badge').allTextContents()).toEqual(['CANCELLED']);
      // The history's event list names who cancelled it.
      expect(await page.locator('ol.events li', { hasText: 'CANCELLED' }).textContent()).toContain(`by ${USER}`);
      await page.screenshot({ path: artifactPath('console', 'cancelled-deploy.png'), fullPage: true });
    } finally {
      await api.put(SIM_PARAMETERS).send({}).expect(200);
    }
  }, 240_000);
});
