import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageBus } from '@acm/messaging';
import type { Browser, Page } from 'playwright-core';
import { AcmctlError, EXIT } from '../../apps/acmctl/src/exit-codes';
import { buildProgram } from '../../apps/acmctl/src/program';
import { artifactPath, launchChromium } from '../support/browser';
import { OidcProviderProcess } from '../support/oidc-provider';
import { freePort } from '../support/processes';
import type { RuntimeHarness } from '../support/runtime-harness';
import {
  BASE,
  USER,
  createInstanceFrom,
  participantRegistered,
  readRepoFile,
  startRuntime,
} from '../support/runtime-harness';
import { ScriptedParticipant, eventually } from '../support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const AUDIENCE = 'acm-runtime';
const CONSOLE_CLIENT = 'acm-console';
const WAIT = { timeout: 60_000 };

const POLICY = `projects:
  "*":
    admin: [${USER}]
  team-a:
    operator: [alice]
  team-b:
    operator: [bob]
`;

/** Signs in at the provider's development login form as `user`, then grants the consent it asks for. */
async function signInAtProvider(page: Page, user: string): Promise<void> {
  await page.locator('input[name="login"]').fill(user, WAIT);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click(WAIT);
}

/**
 * The console signs in through a real OpenID provider (oidc-provider) with the authorization-code flow and PKCE, and
 * acmctl with the device flow: each user then sees only its own project's instances.
 */
describe('the console and acmctl signed in through the OpenID provider', () => {
  let folder: string;
  let provider: OidcProviderProcess;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let browser: Browser;
  let runtimeUrl: string;
  let consoleUrl: string;
  /** A runtime that refuses the provider's tokens (another audience): its console must not sign in again forever. */
  let refusing: RuntimeHarness;
  let refusingConsoleUrl: string;
  const team = {
    a: { compositionId: '', instanceId: '' },
    b: { compositionId: '', instanceId: '' },
  };

  const commissionInto = async (project: string): Promise<{ compositionId: string; instanceId: string }> => {
    const created = await runtime.http
      .post(`${BASE}/compositions?project=${project}`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-single-element.yaml'))
      .expect(201);
    const compositionId = (created.body as { compositionId: string }).compositionId;
    await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually(`${project} PRIMED`, async () => {
      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    return { compositionId, instanceId };
  };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'acm-console-oidc-'));
    const policyFile = join(folder, 'policy.yaml');
    writeFileSync(policyFile, POLICY);
    const [port, refusingPort] = [await freePort(), await freePort()];
    runtimeUrl = `http://127.0.0.1:${port}`;
    consoleUrl = `${runtimeUrl}/onap/policy/clamp/acm/console/`;
    refusingConsoleUrl = `http://127.0.0.1:${refusingPort}/onap/policy/clamp/acm/console/`;
    provider = await OidcProviderProcess.start([], AUDIENCE, {
      users: [
        { user: 'alice', groups: [] },
        { user: 'bob', groups: [] },
      ],
      publicClients: [
        {
          id: CONSOLE_CLIENT,
          redirectUris: [consoleUrl, refusingConsoleUrl],
          postLogoutRedirectUris: [consoleUrl],
        },
        { id: 'acmctl', device: true },
      ],
    });
    runtime = await startRuntime({
      HEART_BEAT: '3600000',
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      OIDC_CONSOLE_CLIENT_ID: CONSOLE_CLIENT,
      OIDC_CONSOLE_SCOPES: 'openid profile acm',
      RUNTIME_POLICY_FILE: policyFile,
    });
    await runtime.app.listen(port, '127.0.0.1');
    refusing = await startRuntime({
      HEART_BEAT: '3600000',
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: 'another-service',
      OIDC_CONSOLE_CLIENT_ID: CONSOLE_CLIENT,
      OIDC_CONSOLE_SCOPES: 'openid profile acm',
    });
    await refusing.app.listen(refusingPort, '127.0.0.1');
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
    team.a = await commissionInto('team-a');
    team.b = await commissionInto('team-b');
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await participant?.stop();
    await runtime?.close();
    await refusing?.close();
    await provider?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('answers the sign-in settings without credentials, and lets the console page connect to the provider', async () => {
    const config = await fetch(`${runtimeUrl}${BASE}/console/config`);
    expect(config.status).toBe(200);
    expect(await config.json()).toEqual({
      oidc: { issuer: provider.issuer, clientId: CONSOLE_CLIENT, scopes: 'openid profile acm' },
    });
    const page = await fetch(consoleUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain(
      `connect-src 'self' ${new URL(provider.issuer).origin};`,
    );
    const api = await fetch(`${runtimeUrl}${BASE}/instances`);
    expect(api.status).toBe(401);
    const malformed = await fetch(`${consoleUrl}%ff`);
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toContain('is not valid percent-encoded UTF-8');
  });

  it('signs alice in through the provider, and shows her only team-a instances', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${consoleUrl}#/instances`);
    await page.waitForURL((url) => url.toString().startsWith(provider.issuer), WAIT);
    await signInAtProvider(page, 'alice');

    await page.locator('[data-user="alice"]').waitFor(WAIT);
    expect(page.url()).toBe(`${consoleUrl}#/instances`);
    await page.locator('[data-live="live"]').waitFor(WAIT);
    const rows = page.locator('main tbody tr');
    await rows.filter({ hasText: team.a.instanceId }).waitFor(WAIT);
    expect(await rows.count()).toBe(1);
    expect(await page.locator('main').textContent()).not.toContain(team.b.instanceId);
    await page.screenshot({ path: artifactPath('console-oidc', 'alice-instances.png'), fullPage: true });

    // The token is in this tab's sessionStorage, never in localStorage.
    expect(await page.evaluate('window.localStorage.length')).toBe(0);
    expect(await page.evaluate('Object.keys(window.sessionStorage)')).toContain('acm-console.session');

    // Alice deploys her instance from its page: the order carries her bearer token, and the graph follows the deploy
    // through the events pushed on the stream read with that token (the page polls nothing).
    await rows.filter({ hasText: team.a.instanceId }).getByRole('link').click();
    await page.locator('g.node[data-state="UNDEPLOYED/NONE"]').waitFor(WAIT);
    const order = page.waitForResponse((response) => response.request().method() === 'PUT');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm deploy' }).click();
    const answer = await order;
    expect(answer.status()).toBe(202);
    expect(answer.request().headers()['authorization']).toMatch(/^Bearer /);
    await page.locator('g.node[data-state="DEPLOYED/LOCKED"]').waitFor(WAIT);
    await page.getByRole('link', { name: 'Instances' }).click();
    await rows
      .filter({ hasText: team.a.instanceId })
      .locator('.badge', { hasText: /^DEPLOYED$/ })
      .waitFor(WAIT);

    // A token the runtime refuses (401), then one that has expired: the console signs in again each time, and with
    // the provider's session still open it comes back signed in, on the same page, with a new token.
    const session = async (): Promise<{ accessToken: string; expiresAt: number }> =>
      JSON.parse(await page.evaluate<string>('window.sessionStorage.getItem("acm-console.session")')) as {
        accessToken: string;
        expiresAt: number;
      };
    for (const damage of [{ accessToken: 'refused-token' }, { expiresAt: 0 }]) {
      const before = await session();
      await page.evaluate(
        `window.sessionStorage.setItem("acm-console.session", ${JSON.stringify(JSON.stringify({ ...before, ...damage }))})`,
      );
      await page.reload();
      await rows.filter({ hasText: team.a.instanceId }).waitFor(WAIT);
      const after = await session();
      expect(after.accessToken).not.toBe(before.accessToken);
      expect(after.accessToken).not.toBe('refused-token');
      expect(page.url()).toBe(`${consoleUrl}#/instances`);
    }

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.toString().startsWith(provider.issuer), WAIT);
    expect(await page.evaluate('window.sessionStorage.getItem("acm-console.session")')).toBeNull();
    await context.close();
  });

  it("shows the runtime's refusal of a token just issued instead of sending the user to sign in again", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${refusingConsoleUrl}#/instances`);
    await page.waitForURL((url) => url.toString().startsWith(provider.issuer), WAIT);
    await signInAtProvider(page, 'alice');
    await page
      .getByRole('alert')
      .filter({ hasText: '401: Unauthorized: the token has a wrong audience' })
      .waitFor(WAIT);
    expect(page.url()).toBe(`${refusingConsoleUrl}#/instances`);
    await context.close();
  });

  it('signs bob in to acmctl with the device flow; acmctl then lists only team-b instances', async () => {
    const profile = join(folder, 'acmctl', 'profile.json');
    const env = { ACMCTL_CONFIG: profile, ACM_URL: runtimeUrl, HOME: folder };
    const printed: string[] = [];
    const login = buildProgram({ env, isTerminal: false, out: (line) => printed.push(line) }).parseAsync([
      'node',
      'acmctl',
      'login',
      '--device',
      '--scope',
      'openid acm',
    ]);
    const verification = await eventually('acmctl to print where to sign in', () =>
      Promise.resolve(/open (http\S+)/.exec(printed.join('\n'))?.[1]),
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(verification);
    await page.getByRole('button', { name: 'Continue' }).click(WAIT);
    await signInAtProvider(page, 'bob');
    await login;
    await context.close();
    expect(printed.at(-1)).toBe(`logged in to ${runtimeUrl} with a token of ${provider.issuer}; profile ${profile}`);
    expect(statSync(profile).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(profile, 'utf8')) as object).sort()).toEqual(['token', 'url']);

    const listed: string[] = [];
    await buildProgram({ env, isTerminal: false, out: (line) => listed.push(line) }).parseAsync([
      'node',
      'acmctl',
      'instances',
      'list',
      '-o',
      'json',
    ]);
    const answer = JSON.parse(listed.join('\n')) as { automationCompositionList: Array<{ instanceId: string }> };
    expect(answer.automationCompositionList.map((instance) => instance.instanceId)).toEqual([team.b.instanceId]);
  });

  it('ends acmctl login --device with exit code 6 when the user refuses at the provider', async () => {
    const profile = join(folder, 'refused', 'profile.json');
    const printed: string[] = [];
    const login = buildProgram({
      env: { ACMCTL_CONFIG: profile, ACM_URL: runtimeUrl, HOME: folder },
      isTerminal: false,
      out: (line) => printed.push(line),
    }).parseAsync(['node', 'acmctl', 'login', '--device', '--scope', 'openid acm']);
    const failure = login.then(
      () => null,
      (error: unknown) => error,
    );
    const verification = await eventually('acmctl to print where to sign in', () =>
      Promise.resolve(/open (http\S+)/.exec(printed.join('\n'))?.[1]),
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(verification);
    await page.getByRole('button', { name: '[ Abort ]' }).click(WAIT);
    const error = await failure;
    await context.close();
    expect(error).toBeInstanceOf(AcmctlError);
    expect((error as AcmctlError).exitCode).toBe(EXIT.UNAUTHORIZED);
    expect((error as AcmctlError).message).toContain('access_denied');
    expect(existsSync(profile)).toBe(false);
  });
});
