import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { artifactPath, launchChromium } from '../support/browser';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const WAIT = { timeout: 60_000 };

/**
 * Records, in the page, the order in which graph nodes reach a state, and marks the page so a reload would
 * show. Page scripts are strings: the test's own compilation has no DOM types.
 */
async function recordArrivals(page: Page, state: string): Promise<void> {
  await page.evaluate(`(() => {
    const arrivals = [];
    const seen = new Set();
    new MutationObserver(() => {
      for (const node of document.querySelectorAll('g.node')) {
        const name = node.dataset.elementName;
        if (node.dataset.state === ${JSON.stringify(state)} && !seen.has(name)) {
          seen.add(name);
          arrivals.push({ name, phase: Number(node.dataset.phase) });
        }
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
    window.arrivals = arrivals;
    window.pageInstance = window.pageInstance ?? Math.random();
  })()`);
}

/**
 * Waits until the graph has its six nodes, all matching the selector. Polled through locators: the page's
 * Content-Security-Policy refuses the string evaluation waitForFunction would use.
 */
const allNodesIn = (page: Page, selector: string): Promise<unknown> =>
  eventually(
    `six graph nodes ${selector}`,
    async () =>
      (await page.locator('g.node').count()) === 6 && (await page.locator(`g.node${selector}`).count()) === 6
        ? true
        : undefined,
    3000,
  );

const nodesIn = (page: Page, state: string): Promise<number> => page.locator(`g.node[data-state="${state}"]`).count();

/**
 * The web console in Debian's Chromium against the runtime as `npm start` runs it, with simulator delays:
 * everything is done from the page, and the graph changes only through the runtime's pushed events.
 */
describe('the web console', () => {
  let runtime: EmbeddedRuntime;
  let browser: Browser;
  let page: Page;
  let consoleUrl: string;
  /** What Chromium refused under the page's Content-Security-Policy, as it reports it on the console. */
  const refusedByPolicy: string[] = [];

  beforeAll(async () => {
    // Each simulated element takes a while, so a phase's end is visible before the next one's.
    runtime = await startEmbeddedRuntime('console-runtime', { SIMULATOR_TIMERS_MS: '700' });
    browser = await launchChromium();
    const context = await browser.newContext({
      httpCredentials: { username: USER, password: PASSWORD },
      viewport: { width: 1400, height: 1000 },
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) {
        refusedByPolicy.push(message.text());
      }
    });
    consoleUrl = `http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm/console/`;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
  });

  it('answers 401 without credentials, like every other path', async () => {
    const anonymous = await fetch(consoleUrl);
    expect(anonymous.status).toBe(401);
    const stream = await fetch(`http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm/v2/events`);
    expect(stream.status).toBe(401);
  });

  it('commissions, primes, deploys a three-phase composition phase after phase, and undeploys it', async () => {
    await page.goto(consoleUrl);
    await page.locator('[data-live="live"]').waitFor(WAIT);

    await page
      .getByLabel('Commission a service template (JSON or YAML):')
      .setInputFiles(join(REPO_ROOT, 'tosca/examples/sim-three-phase.yaml'));
    const commissioned = await page.getByRole('status').filter({ hasText: 'commissioned' }).textContent(WAIT);
    const compositionId = /commissioned ([0-9a-f-]{36})/.exec(commissioned ?? '')![1]!;
    const row = page.locator(`tr[data-composition-id="${compositionId}"]`);
    await row.locator('.badge', { hasText: 'COMMISSIONED' }).waitFor(WAIT);

    await row.getByRole('button', { name: 'Prime', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm prime' }).click();
    await row.locator('.badge', { hasText: /^PRIMED$/ }).waitFor(WAIT);

    await row.getByRole('button', { name: 'Elements' }).click();
    await page
      .getByLabel('Create an instance from a file (JSON or YAML):')
      .setInputFiles(join(REPO_ROOT, 'tosca/examples/instances/sim-three-phase.json'));
    await allNodesIn(page, '[data-state="UNDEPLOYED/NONE"]');
    await recordArrivals(page, 'DEPLOYED/LOCKED');
    const pageInstance = await page.evaluate('window.pageInstance');

    const deployPlan = page.waitForResponse((response) => response.url().endsWith('/plan'));
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    const dialog = page.getByRole('dialog');
    const { planId } = (await (await deployPlan).json()) as { planId: string };
    expect(planId).toMatch(/^[0-9a-f]{48}$/);
    // The runtime's plan, read as the dialog opens: the three phases in order.
    await dialog.locator('[data-plan-step]').nth(2).waitFor(WAIT);
    expect(await dialog.locator('[data-plan-step]').allTextContents()).toEqual([
      expect.stringMatching(/^phase 0 starts: acm\.example\.phases\.Phase0[AB], acm\.example\.phases\.Phase0[AB]$/),
      expect.stringMatching(/^phase 1 starts: .*Phase1[AB], .*Phase1[AB]$/),
      expect.stringMatching(/^phase 2 starts: .*Phase2[AB], .*Phase2[AB]$/),
    ]);
    await page.screenshot({ path: artifactPath('console', '1-deploy-confirmation.png') });
    // The order carries the plan's id: the runtime runs it only if nothing changed since the dialog showed the plan.
    const deployOrder = page.waitForRequest((request) => request.method() === 'PUT');
    await dialog.getByRole('button', { name: 'Confirm deploy' }).click();
    expect(new URL((await deployOrder).url()).searchParams.get('planId')).toBe(planId);

    // Mid-deploy: phase 0 is done, phase 1 runs, and phase 2 waits, queued behind phase 1 with that reason.
    await page.locator('g.node[data-phase="1"][data-running="true"]').first().waitFor(WAIT);
    expect(await page.locator('g.node[data-phase="2"][data-state="DEPLOYED/LOCKED"]').count()).toBe(0);
    await page.locator('g.node[data-phase="2"][data-waiting="true"]').first().waitFor(WAIT);
    await page.getByText(/Running: .*Phase1/).waitFor(WAIT);
    await page
      .getByText(/Phase2[AB] waits for phase 2 to open \(after phase 1\)/)
      .first()
      .waitFor(WAIT);
    // The progress counts every element of the deploy, not only those dispatched so far.
    await page.locator('.progress-count', { hasText: /^ ?[2-5] of 6 elements done$/ }).waitFor(WAIT);
    expect(await page.locator('g.node[data-phase="0"][data-waiting="true"]').count()).toBe(0);
    await page.screenshot({ path: artifactPath('console', '2-deploy-phase-1-running.png'), fullPage: true });

    await allNodesIn(page, '[data-state="DEPLOYED/LOCKED"]');
    const deployed = await page.evaluate<Array<{ name: string; phase: number }>>('window.arrivals');
    expect(deployed.map((arrival) => arrival.phase)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(await page.evaluate('window.pageInstance')).toBe(pageInstance);
    await page.locator('[data-operation="DEPLOY"]', { hasText: 'COMPLETED' }).waitFor(WAIT);
    await page.locator('.summary .badge', { hasText: /^DEPLOYED$/ }).waitFor(WAIT);
    const timeline = (await page.locator('[data-operation="DEPLOY"]').textContent()) ?? '';
    expect(timeline).toMatch(/phase 0: \d+\.\d\d s.*phase 1: \d+\.\d\d s.*phase 2: \d+\.\d\d s/);
    await page.screenshot({ path: artifactPath('console', '3-deployed.png'), fullPage: true });

    // An order the state refuses is disabled, with the runtime's refusal on hover and on focus; it opens no dialog.
    const lock = page.getByRole('button', { name: 'Lock', exact: true });
    await page.locator('button[aria-disabled="true"]', { hasText: /^Lock$/ }).waitFor(WAIT);
    expect(await page.locator('button[aria-disabled="true"]', { hasText: /^Undeploy$/ }).count()).toBe(0);
    await lock.hover();
    const reason = page
      .getByRole('tooltip')
      .filter({ hasText: 'Not valid order' })
      .filter({ hasText: 'lockOrder=LOCK' });
    await reason.waitFor({ state: 'visible', ...WAIT });
    await page.screenshot({ path: artifactPath('console', '3b-lock-refused-reason.png'), fullPage: true });
    await page.mouse.move(0, 0);
    await reason.waitFor({ state: 'hidden', ...WAIT });
    // Tab from the button before it: a keyboard focus shows the reason too.
    await page.getByRole('button', { name: 'Undeploy', exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Lock');
    await reason.waitFor({ state: 'visible', ...WAIT });
    expect(await lock.getAttribute('aria-describedby')).toBe(await reason.getAttribute('id'));
    // Enter on the focused button, as a keyboard user would: nothing opens (a pointer cannot click it at all).
    await page.keyboard.press('Enter');
    expect(await lock.isEnabled()).toBe(false);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await nodesIn(page, 'DEPLOYED/LOCKED')).toBe(6);

    // A plan the runtime refuses when the dialog opens (the state changed since the page read it): the dialog shows
    // the refusal and offers no confirm. The refusal is the runtime's answer, played here by the browser's router.
    await page.route('**/plan', (route) =>
      (route.request().postDataJSON() as { order?: string } | null)?.order === 'UNLOCK'
        ? route.fulfill({
            status: 400,
            contentType: 'application/json',
            body: JSON.stringify({ errorDetails: 'Not valid order UNLOCK; the state changed meanwhile' }),
          })
        : route.continue(),
    );
    await page.getByRole('button', { name: 'Unlock', exact: true }).click();
    const refusedPlan = page.getByRole('dialog');
    await refusedPlan.getByText('The runtime would refuse this order').waitFor(WAIT);
    expect(await refusedPlan.getByRole('button', { name: 'Confirm unlock' }).count()).toBe(0);
    await page.screenshot({ path: artifactPath('console', '3c-refused-plan.png') });
    await refusedPlan.getByRole('button', { name: 'Close' }).click();
    await page.unroute('**/plan');

    // From the keyboard: the order button, then the dialog's first button (confirm), both with Enter.
    await page.getByRole('button', { name: 'Undeploy', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm undeploy' }).waitFor(WAIT);
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Confirm undeploy');
    await page.keyboard.press('Enter');
    await allNodesIn(page, '[data-state^="UNDEPLOYED"]');
    await page.locator('[data-operation="UNDEPLOY"]', { hasText: 'COMPLETED' }).waitFor(WAIT);
    await page.locator('.summary .badge', { hasText: /^UNDEPLOYED$/ }).waitFor(WAIT);
    // The undeploy ran its phases from the highest down, and the timeline lists them as they ran.
    const undeployTimeline = (await page.locator('[data-operation="UNDEPLOY"]').textContent()) ?? '';
    expect(undeployTimeline).toMatch(/phase 2: \d+\.\d\d s.*phase 1: \d+\.\d\d s.*phase 0: \d+\.\d\d s/);
    // "accepted" beside Undeploy was for the state that has gone: it is cleared; Deploy is offered again.
    await eventually(
      'no order status left from before the state change',
      async () => ((await page.locator('.order-status').count()) === 0 ? true : undefined),
      3000,
    );
    expect(await page.locator('button[aria-disabled="true"]', { hasText: /^Deploy$/ }).count()).toBe(0);
    await page.screenshot({ path: artifactPath('console', '4-undeployed.png'), fullPage: true });

    // The dialog of a delete lists what it changes: every element, deleted. Closing it sends nothing.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const deleteDialog = page.getByRole('dialog');
    await deleteDialog.locator('[data-plan-change]').nth(5).waitFor(WAIT);
    expect(await deleteDialog.locator('[data-plan-change="delete"]').count()).toBe(6);
    expect(await deleteDialog.getByRole('list', { name: 'changes' }).textContent()).toContain('- acm.example.phases.');
    await page.screenshot({ path: artifactPath('console', '5-delete-confirmation.png') });
    await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.summary .badge', { hasText: /^UNDEPLOYED$/ }).waitFor(WAIT);
  }, 240_000);

  it('fits every node label into its box by measuring it, with the full name as a tooltip', async () => {
    // Names of wide and narrow letters: a width guessed per character clips the first two and squeezes the third.
    const renamed: Record<string, string> = {
      'acm.example.phases.Phase0A': 'acm.example.labels.WWWWWWWWWWWWWWWWWWWWWWWW-element',
      'acm.example.phases.Phase0B': 'acm.example.wide.WWWWWWWWWWWWWWWWWWW',
      'acm.example.phases.Phase1A': 'acm.example.narrow.iiiiiiiiiiiiiiiiiiiiiiii',
    };
    let template = readFileSync(join(REPO_ROOT, 'tosca/examples/sim-three-phase.yaml'), 'utf8').replace(
      'name: acm.example.SimThreePhase',
      'name: acm.example.LongLabels',
    );
    for (const [name, long] of Object.entries(renamed)) {
      template = template.replaceAll(`${name}\n`, `${long}\n`).replaceAll(`${name}:`, `${long}:`);
    }
    const file = join(mkdtempSync(join(tmpdir(), 'console-labels-')), 'long-labels.yaml');
    writeFileSync(file, template);

    await page.goto(consoleUrl);
    await page.locator('[data-live="live"]').waitFor(WAIT);
    await page.getByLabel('Commission a service template (JSON or YAML):').setInputFiles(file);
    const commissioned = await page.getByRole('status').filter({ hasText: 'commissioned' }).textContent(WAIT);
    const compositionId = /commissioned ([0-9a-f-]{36})/.exec(commissioned ?? '')![1]!;
    await page.locator(`tr[data-composition-id="${compositionId}"]`).getByRole('button', { name: 'Elements' }).click();
    await allNodesIn(page, '');
    await page.locator('g.node text.node-name[data-fitted="shortened"]').nth(1).waitFor(WAIT);

    const labels = await page.evaluate<
      Array<{
        element: string;
        kind: string;
        room: number;
        width: number;
        right: number;
        box: number;
        shown: string;
        title: string | null;
      }>
    >(`[...document.querySelectorAll('g.node text')].map((text) => {
      const box = Number(text.closest('g.node').querySelector('rect').getAttribute('width'));
      const x = Number(text.getAttribute('x'));
      const drawn = text.getBBox();
      return {
        element: text.closest('g.node').dataset.elementName,
        kind: text.getAttribute('class'),
        room: box - 2 * x,
        width: text.getComputedTextLength(),
        right: drawn.x + drawn.width,
        box,
        shown: text.querySelector('tspan').textContent,
        title: text.querySelector('title')?.textContent ?? null,
      };
    })`);
    expect(labels).toHaveLength(12);
    for (const label of labels) {
      expect({ ...label, fits: label.width <= label.room && label.right <= label.box }).toMatchObject({ fits: true });
    }
    const nameOf = (element: string) =>
      labels.find((label) => label.element === element && label.kind === 'node-name')!;
    for (const wide of [renamed['acm.example.phases.Phase0A']!, renamed['acm.example.phases.Phase0B']!]) {
      const label = nameOf(wide);
      // Shortened in the middle: its start and its end stay, and the tooltip has the whole name.
      const [head, tail, ...rest] = label.shown.split('…');
      expect(rest).toEqual([]);
      expect(head).toMatch(/^(labels|wide)\.W/);
      expect(wide.endsWith(tail!)).toBe(true);
      expect(label.title).toBe(wide);
    }
    // A long name of narrow letters fits, so it is drawn whole and unsqueezed.
    const narrow = nameOf(renamed['acm.example.phases.Phase1A']!);
    expect(narrow.shown).toBe('narrow.iiiiiiiiiiiiiiiiiiiiiiii');
    expect(narrow.title).toBe(renamed['acm.example.phases.Phase1A']);
    expect(await page.locator('g.node text[textLength]').count()).toBe(0);
    await page.locator('svg.graph').screenshot({ path: artifactPath('console', '5-long-labels.png') });
  }, 120_000);

  it('runs all of the above under its Content-Security-Policy, which refuses framing and inline scripts', async () => {
    const answer = await page.goto(consoleUrl);
    const headers = answer!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self';");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['x-content-type-options']).toBe('nosniff');
    await page.locator('[data-live="live"]').waitFor(WAIT);
    expect(refusedByPolicy).toEqual([]);
    // The policy is enforced, not merely sent: an inline script the page did not ship is refused.
    await page.evaluate(`(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
    })()`);
    expect(await page.evaluate('window.injected === true')).toBe(false);
    expect(refusedByPolicy).toEqual([expect.stringContaining("script-src 'self'")]);
  });
});
