import { randomUUID } from 'node:crypto';
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
 * A rollout in the web console (Debian's Chromium, the runtime as `npm start` runs it with its simulator): three
 * instances deployed one a batch, paused and resumed from the page's buttons, followed to COMPLETED by the pushed
 * ROLLOUT events.
 */
describe('the web console shows a rollout', () => {
  let runtime: EmbeddedRuntime;
  let browser: Browser;
  let page: Page;
  let api: request.Agent;
  let compositionId: string;
  const instanceIds: string[] = [];

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('console-rollouts-runtime');
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

  it('shows batches and instances reach DONE, pauses and resumes through its buttons, and ends COMPLETED', async () => {
    const commissioned = await api
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readFileSync(join(REPO_ROOT, 'tosca/examples/sim-three-phase.yaml'), 'utf8'))
      .expect(201);
    compositionId = (commissioned.body as { compositionId: string }).compositionId;
    await api.put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('PRIMED', async () => {
      const got = await api.get(`${API}/compositions/${compositionId}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    const template = readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-three-phase.json'), 'utf8').replace(
      /COMPOSITIONIDPLACEHOLDER/g,
      compositionId,
    );
    for (const index of [1, 2, 3]) {
      // Element ids are unique across instances: each instance gets its own (a key and its id alike).
      const fresh = new Map<string, string>();
      const elements = template.replace(/5e1f0000-0000-4000-8000-0000000020\d\d/g, (id) => {
        fresh.set(id, fresh.get(id) ?? randomUUID());
        return fresh.get(id)!;
      });
      const body = { ...(JSON.parse(elements) as object), name: `RolloutInstance${index}` };
      const created = await api.post(`${API}/compositions/${compositionId}/instances`).send(body).expect(201);
      instanceIds.push((created.body as { instanceId: string }).instanceId);
    }

    // Each element takes a while, so the first batch is still running when the page pauses the rollout.
    await api.put(SIM_PARAMETERS).send({ deployTimerMs: 1500 }).expect(200);
    try {
      await page.goto(`http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm/console/`);
      await page.locator('[data-live="live"]').waitFor(WAIT);
      await page.getByRole('navigation', { name: 'sections' }).getByRole('link', { name: 'Rollouts' }).click();
      await page.getByText('No rollout yet.').waitFor(WAIT);

      const started = await api
        .post(`${API}/rollouts`)
        .send({ order: 'DEPLOY', compositionId, instanceIds, strategy: { batchSize: 1 } })
        .expect(201);
      const rolloutId = (started.body as { rolloutId: string }).rolloutId;
      // The list learns of it from the stream, and links to its page.
      const row = page.locator(`tr[data-rollout-id="${rolloutId}"]`);
      await row.locator('.badge', { hasText: /^RUNNING$/ }).waitFor(WAIT);
      expect(await row.textContent()).toContain('DEPLOY');
      await row.getByRole('link').click();

      const batch = (number: number) => page.locator(`tr[data-batch="${number}"]`);
      const cell = (instanceId: string) => page.locator(`.rollout-instance[data-instance-id="${instanceId}"]`);
      await page
        .locator(`.rollout-instance[data-instance-id="${instanceIds[0]!}"][data-state="ORDERED"]`)
        .waitFor(WAIT);
      expect(await page.locator('tr[data-batch]').count()).toBe(3);
      expect(await cell(instanceIds[2]!).getAttribute('data-state')).toBe('PENDING');
      // Only the controls the state accepts are offered; the others carry the runtime's refusal.
      expect(await page.locator('button[aria-disabled="true"]', { hasText: /^Resume$/ }).count()).toBe(1);
      expect(await page.locator('button[aria-disabled="true"]', { hasText: /^Pause$/ }).count()).toBe(0);
      await page.screenshot({ path: artifactPath('console', 'rollout-1-running.png'), fullPage: true });

      await page.getByRole('button', { name: 'Pause', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm pause' }).click();
      await page.locator('.summary .badge', { hasText: /^PAUSED$/ }).waitFor(WAIT);
      await page.locator('.rollout-reason', { hasText: 'paused by request' }).waitFor(WAIT);
      // The operation already ordered goes on to its end; nothing more is ordered while paused.
      await page.locator('.rollout-instance[data-state="DONE"]').first().waitFor(WAIT);
      await eventually('no instance in flight', async () =>
        (await page.locator('.rollout-instance[data-state="ORDERED"]').count()) === 0 ? true : undefined,
      );
      expect(await cell(instanceIds[2]!).getAttribute('data-state')).toBe('PENDING');
      expect(await page.locator('button[aria-disabled="true"]', { hasText: /^Pause$/ }).count()).toBe(1);
      await page.screenshot({ path: artifactPath('console', 'rollout-2-paused.png'), fullPage: true });

      await page.getByRole('button', { name: 'Resume', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirm resume' }).click();
      await page.locator('.summary .badge', { hasText: /^COMPLETED$/ }).waitFor(WAIT);
      for (const instanceId of instanceIds) {
        expect(await cell(instanceId).getAttribute('data-state')).toBe('DONE');
      }
      for (const number of [1, 2, 3]) {
        expect(await batch(number).getAttribute('data-state')).toBe('ENDED');
      }
      expect(await page.locator('.summary .rollout-progress').textContent()).toBe('3 of 3 ended');
      // Finished: no control is offered any more.
      expect(await page.locator('.orders button[aria-disabled="true"]').count()).toBe(4);
      await page.screenshot({ path: artifactPath('console', 'rollout-3-completed.png'), fullPage: true });
    } finally {
      await api.put(SIM_PARAMETERS).send({}).expect(200);
    }
  }, 240_000);

  it('polls the rollouts while no live stream is open, and shows a batch baking', async () => {
    const context = await browser.newContext({ httpCredentials: { username: USER, password: PASSWORD } });
    try {
      const offline = await context.newPage();
      // The stream is refused at every attempt: only polling can show what happens next.
      await offline.route('**/v2/events', (route) => route.abort());
      await offline.goto(`http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm/console/#/rollouts`);
      await offline.locator('[data-live="reconnecting"]').waitFor(WAIT);
      await offline.locator('tr[data-rollout-id] .badge', { hasText: /^COMPLETED$/ }).waitFor(WAIT);
      const started = await api
        .post(`${API}/rollouts`)
        .send({ order: 'UNDEPLOY', compositionId, instanceIds, strategy: { batchSize: 3, bakeTime: 6 } })
        .expect(201);
      const rolloutId = (started.body as { rolloutId: string }).rolloutId;
      const row = offline.locator(`tr[data-rollout-id="${rolloutId}"]`);
      await row.waitFor(WAIT);
      await row.getByRole('link').click();
      // The bake outlasts several polls: the page shows the batch BAKING with the time it has left.
      await offline
        .locator('tr[data-batch="1"][data-state="BAKING"] .bake', { hasText: /^ ?bakes \d s more$/ })
        .waitFor(WAIT);
      await offline.screenshot({ path: artifactPath('console', 'rollout-4-baking.png'), fullPage: true });
      await offline.locator('.summary .badge', { hasText: /^COMPLETED$/ }).waitFor(WAIT);
      expect(await offline.locator('[data-live="reconnecting"]').count()).toBe(1);
    } finally {
      await context.close();
    }
  }, 120_000);
});
