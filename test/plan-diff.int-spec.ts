import { randomUUID } from 'node:crypto';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, commissionAndPrime, createInstanceFrom, instanceOf, readRepoFile } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const TOKEN = `token-${randomUUID()}`;
const PASSWORD = `password-${randomUUID()}`;
const NEW_PASSWORD = `password-${randomUUID()}`;

interface ElementBody {
  id: string;
  definition: { name: string; version: string };
  description: string | null;
  properties: Record<string, unknown>;
}

interface InstanceBody {
  instanceId: string;
  compositionId: string;
  name: string;
  version: string;
  deployState: string;
  elements: Record<string, ElementBody>;
}

interface DiffPlan {
  planId: string;
  order: string;
  runsOperation: boolean;
  changes: Array<{
    elementId: string;
    name: string;
    action: string;
    changes: Array<{ path: string; old?: unknown; new?: unknown; sensitive?: true; text: string }>;
  }>;
  summary: Record<string, number>;
  steps: unknown[];
}

/** The body of an update of `instance`: its own fields, with each element's properties changed by `change`. */
function updateBody(
  instance: InstanceBody,
  change: (element: ElementBody) => Record<string, unknown> = (element) => element.properties,
): Record<string, unknown> {
  return {
    instanceId: instance.instanceId,
    compositionId: instance.compositionId,
    name: instance.name,
    version: instance.version,
    elements: Object.fromEntries(
      Object.values(instance.elements).map((element) => [
        element.id,
        {
          id: element.id,
          definition: element.definition,
          description: element.description,
          properties: change(element),
        },
      ]),
    ),
  };
}

const errorOf = (response: { body: unknown }): string => (response.body as { errorDetails: string }).errorDetails;

/**
 * POST .../plan with an order's body through the real store: the diff per element, the steps GET .../plan answers,
 * the checks of the order itself, and a planId that an order carries to start only if nothing changed since.
 */
describe('a plan with a diff and saved plans (PostgreSQL, in-process bus)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  let instance: InstanceBody;
  let instancePath: string;
  let databaseId: string;

  async function until(deployState: string): Promise<InstanceBody> {
    return eventually(deployState, async () => {
      const got = (await runtime.http.get(instancePath).expect(200)).body as InstanceBody & { phase?: number };
      return got.deployState === deployState && got.phase === undefined ? got : undefined;
    });
  }

  const plan = (body: unknown): ReturnType<RuntimeHarness['http']['post']> =>
    runtime.http.post(`${instancePath}/plan`).send(body as object);

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({
      HEART_BEAT: '3600000',
      MSG_ENABLE_ENCRYPTION: 'true',
      MSG_ENCRYPTION_KEY: 'k',
    }));
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-diamond.yaml'));
    const created = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-diamond.json'),
    );
    instancePath = `${BASE}/compositions/${compositionId}/instances/${created.instanceId}`;
    await runtime.http.put(instancePath).send({ deployOrder: 'DEPLOY' }).expect(202);
    instance = await until('DEPLOYED');
    databaseId = Object.values(instance.elements).find((element) => element.definition.name.endsWith('Database'))!.id;
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  const newUrl = (element: ElementBody): Record<string, unknown> =>
    element.id === databaseId ? { ...element.properties, baseUrl: 'http://db.example/v2' } : element.properties;

  it('shows an UPDATE changing one property as old → new, the steps of GET plan, and writes nothing', async () => {
    // The instance as GET answers it, one property changed: what docs/tosca.md's example sends.
    const asRead = {
      ...instance,
      elements: Object.fromEntries(
        Object.entries(instance.elements).map(([id, element]) => [id, { ...element, properties: newUrl(element) }]),
      ),
    };
    const planned = (await plan({ order: 'UPDATE', instance: asRead }).expect(200)).body as DiffPlan;

    expect(planned.planId).toMatch(/^[0-9a-f]{48}$/);
    expect(planned.summary).toEqual({ create: 0, update: 1, replace: 0, delete: 0, unchanged: 3 });
    const database = planned.changes.find((change) => change.elementId === databaseId);
    expect(database).toMatchObject({ action: 'update', name: 'acm.example.diamond.Database' });
    expect(database?.changes).toEqual([
      {
        path: 'baseUrl',
        old: 'http://sim.example:30800/database',
        new: 'http://db.example/v2',
        text: 'baseUrl: "http://sim.example:30800/database" → "http://db.example/v2"',
      },
    ]);
    expect(planned.changes.map((change) => change.elementId)).toEqual(Object.keys(instance.elements).sort());
    const getPlan = (await runtime.http.get(`${instancePath}/plan?order=UPDATE`).expect(200)).body as DiffPlan;
    expect(planned.steps).toEqual(getPlan.steps);
    expect(planned.runsOperation).toBe(true);

    const after = await instanceOf<InstanceBody>(runtime, compositionId, instance.instanceId);
    expect(after.elements[databaseId]?.properties['baseUrl']).toBe('http://sim.example:30800/database');
    expect(after.deployState).toBe('DEPLOYED');
  });

  it('shows a property that becomes a reference to another element as known after deploy', async () => {
    const reference = { get_attribute: ['acm.example.diamond.Database', 'url'] };
    const body = updateBody(instance, (element) =>
      element.definition.name.endsWith('Worker') ? { ...element.properties, baseUrl: reference } : element.properties,
    );
    const planned = (await plan({ order: 'UPDATE', instance: body }).expect(200)).body as DiffPlan;

    const worker = planned.changes.find((change) => change.name.endsWith('Worker'));
    expect(worker?.action).toBe('update');
    expect(worker?.changes).toEqual([
      expect.objectContaining({
        path: 'baseUrl',
        knownAfterDeploy: true,
        text: expect.stringMatching(/→ \(known after deploy\)$/),
      }),
    ]);
    expect(worker?.changes[0]).not.toHaveProperty('new');
  });
  it('plans a migration body: an element it drops is a delete, one it adds a create, a changed one an update', async () => {
    const added = randomUUID();
    const body: Record<string, unknown> = { ...updateBody(instance, newUrl), compositionTargetId: compositionId };
    const elements = body['elements'] as Record<string, ElementBody>;
    const worker = Object.values(elements).find((element) => element.definition.name.endsWith('Worker'))!;
    delete elements[worker.id];
    elements[added] = { ...worker, id: added };

    const planned = (await plan({ order: 'MIGRATE', instance: body }).expect(200)).body as DiffPlan & {
      compositionTargetId: string;
    };

    expect(planned.compositionTargetId).toBe(compositionId);
    expect(planned.summary).toEqual({ create: 1, update: 1, replace: 0, delete: 1, unchanged: 2 });
    const actionOf = (id: string): string | undefined =>
      planned.changes.find((change) => change.elementId === id)?.action;
    expect([actionOf(added), actionOf(worker.id), actionOf(databaseId)]).toEqual(['create', 'delete', 'update']);
    const precheck = await plan({ order: 'MIGRATE_PRECHECK', instance: { ...body, precheck: true } }).expect(200);
    expect((precheck.body as DiffPlan).summary).toEqual(planned.summary);
    expect(
      (await instanceOf<InstanceBody>(runtime, compositionId, instance.instanceId)).elements[worker.id],
    ).toBeDefined();
  });

  it('refuses a plan with the status and message the order itself gets, fields of the body under instance.', async () => {
    const unknownElement = updateBody(instance);
    const ghost = randomUUID();
    (unknownElement['elements'] as Record<string, unknown>)[ghost] = {
      id: ghost,
      definition: { name: 'acm.example.diamond.Database', version: '1.0.0' },
      properties: {},
    };
    const order = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(unknownElement);
    const planned = await plan({ order: 'UPDATE', instance: unknownElement });
    expect([planned.status, errorOf(planned)]).toEqual([400, `Element id not present ${ghost}`]);
    expect([order.status, errorOf(order)]).toEqual([400, errorOf(planned)]);

    const noName = await plan({ order: 'UPDATE', instance: { ...updateBody(instance), name: undefined } }).expect(400);
    expect(errorOf(noName)).toMatch(/^instance\.name: is required/);
    expect(errorOf(await plan({ order: 'UPDATE' }).expect(400))).toBe(
      'instance: required for order UPDATE: the body the order takes (an AutomationComposition)',
    );
    expect(errorOf(await plan({ order: 'DEPLOY', instance: updateBody(instance) }).expect(400))).toMatch(
      /^instance: only for orders UPDATE, MIGRATE, MIGRATE_PRECHECK, not DEPLOY/,
    );
    expect(errorOf(await plan({ order: 'MIGRATE', instance: updateBody(instance) }).expect(400))).toMatch(
      /^instance: this body orders UPDATE \(compositionTargetId starts a migration, precheck: true a precheck\), not MIGRATE$/,
    );
    expect(
      errorOf(await runtime.http.put(`${instancePath}?planId=abc`).send({ deployOrder: 'UNDEPLOY' }).expect(400)),
    ).toBe('planId: must be the 48 hexadecimal characters POST .../plan answered, got "abc"');
    const other = randomUUID();
    const otherId = await plan({ order: 'UPDATE', instance: { ...updateBody(instance), instanceId: other } }).expect(
      400,
    );
    expect(errorOf(otherId)).toBe(`instance.instanceId: ${other} does not match with ${instance.instanceId}`);
    const creation = { ...updateBody(instance), instanceId: undefined, name: 'other' };
    const planIdOnCreate = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances?planId=${'0'.repeat(48)}`)
      .send(creation)
      .expect(400);
    expect(errorOf(planIdOnCreate)).toBe(
      'planId: only for an update or a migration (a body with instanceId), not a creation',
    );
  });

  it('refuses an order whose body differs from the plan, starts the planned one, then refuses a stale plan', async () => {
    const body = updateBody(instance, newUrl);
    const planned = (await plan({ order: 'UPDATE', instance: body }).expect(200)).body as DiffPlan;
    const undeployPlan = (await plan({ order: 'UNDEPLOY' }).expect(200)).body as DiffPlan;
    expect(undeployPlan.summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0, unchanged: 4 });
    const instances = `${BASE}/compositions/${compositionId}/instances`;

    const otherBody = updateBody(instance, (element) => ({ ...element.properties, baseUrl: 'http://other' }));
    const refused = await runtime.http.post(`${instances}?planId=${planned.planId}`).send(otherBody).expect(409);
    expect(errorOf(refused)).toContain(`planId ${planned.planId} is stale: the order or its body differs`);
    expect(errorOf(refused)).not.toContain('the instance changed');

    await runtime.http.post(`${instances}?planId=${planned.planId}`).send(body).expect(200);
    const updated = await eventually('the update to finish', async () => {
      const got = await instanceOf<InstanceBody & { phase?: number }>(runtime, compositionId, instance.instanceId);
      return got.deployState === 'DEPLOYED' &&
        got.elements[databaseId]?.properties['baseUrl'] === 'http://db.example/v2'
        ? got
        : undefined;
    });

    const stale = await runtime.http
      .put(`${instancePath}?planId=${undeployPlan.planId}`)
      .send({ deployOrder: 'UNDEPLOY' });
    expect(stale.status).toBe(409);
    expect(errorOf(stale)).toContain('the instance changed');
    expect(errorOf(stale)).not.toContain('the order or its body');
    expect((await instanceOf<InstanceBody>(runtime, compositionId, instance.instanceId)).deployState).toBe('DEPLOYED');

    const fresh = (await plan({ order: 'UNDEPLOY' }).expect(200)).body as DiffPlan;
    expect(fresh.planId).not.toBe(undeployPlan.planId);
    await runtime.http.put(`${instancePath}?planId=${fresh.planId}`).send({ deployOrder: 'UNDEPLOY' }).expect(202);
    instance = { ...updated, ...(await until('UNDEPLOYED')) };
  });

  it('plans a DELETE as a delete of every element; a deploy and undeploy later that plan is stale', async () => {
    const planned = (await plan({ order: 'DELETE' }).expect(200)).body as DiffPlan;
    expect(planned.changes.map((change) => change.action)).toEqual(['delete', 'delete', 'delete', 'delete']);
    expect(planned.summary.delete).toBe(4);
    // Orders without planId run exactly as before.
    await runtime.http.put(instancePath).send({ deployOrder: 'DEPLOY' }).expect(202);
    await until('DEPLOYED');
    await runtime.http.put(instancePath).send({ deployOrder: 'UNDEPLOY' }).expect(202);
    await until('UNDEPLOYED');

    const stale = await runtime.http.delete(`${instancePath}?planId=${planned.planId}`).expect(409);
    expect(errorOf(stale)).toContain('the instance changed (its states, elements, properties or revision)');
    const fresh = (await plan({ order: 'DELETE' }).expect(200)).body as DiffPlan;
    await runtime.http.delete(`${instancePath}?planId=${fresh.planId}`).expect(202);
    await eventually('the instance to be deleted', async () =>
      (await runtime.http.get(instancePath)).status === 404 ? true : undefined,
    );
  });

  it('compares sensitive values in clear (stored encrypted) and answers them masked', async () => {
    const sensitiveId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-sensitive.yaml'));
    const created = await createInstanceFrom(
      runtime,
      sensitiveId,
      readRepoFile('tosca/examples/instances/sim-sensitive.json')
        .replace('SECRET-TOKEN-PLACEHOLDER', TOKEN)
        .replace('SECRET-PASSWORD-PLACEHOLDER', PASSWORD),
    );
    const stored = await instanceOf<InstanceBody>(runtime, sensitiveId, created.instanceId);
    // The body an operator would send: every value in clear, the password changed.
    const body = updateBody(stored, (element) => ({
      ...element.properties,
      baseUrl: `http://sim.example:30800/?token=${TOKEN}`,
      credentials: { user: 'operator', password: NEW_PASSWORD },
    }));
    const planned = await runtime.http
      .post(`${BASE}/compositions/${sensitiveId}/instances/${created.instanceId}/plan`)
      .send({ order: 'UPDATE', instance: body })
      .expect(200);
    const answer = planned.body as DiffPlan;

    expect(answer.runsOperation).toBe(false);
    expect(answer.changes[0]?.changes).toEqual([
      {
        path: 'credentials.password',
        old: '******',
        new: '******',
        sensitive: true,
        text: 'credentials.password: ****** → ******',
      },
    ]);
    const otherSecret = updateBody(stored, (element) => ({
      ...element.properties,
      baseUrl: `http://sim.example:30800/?token=${TOKEN}`,
      credentials: { user: 'operator', password: `another-${NEW_PASSWORD}` },
    }));
    const replanned = await runtime.http
      .post(`${BASE}/compositions/${sensitiveId}/instances/${created.instanceId}/plan`)
      .send({ order: 'UPDATE', instance: otherSecret })
      .expect(200);
    // No secret goes into a planId: two bodies that differ only in one have the same.
    expect((replanned.body as DiffPlan).planId).toBe(answer.planId);
    expect(planned.text).not.toContain(PASSWORD);
    expect(planned.text).not.toContain(NEW_PASSWORD);
    expect(planned.text).not.toContain(TOKEN);
  });
});
