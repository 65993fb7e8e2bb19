import { randomUUID } from 'node:crypto';
import type { AutomationCompositionMigration, AutomationCompositionPrepare, PropertiesUpdate } from '@acm/contracts';
import type { DeployState, LockState } from '@acm/domain';
import { isInstanceTransitional } from '@acm/domain';
import { MessageBus } from '@acm/messaging';
import { Client } from 'pg';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime } from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';
import { testDatabaseUrl } from './support/services';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const SIM_TYPE2 = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement2', typeVersion: '1.0.0' };
const fromYaml = readRepoFile('tosca/examples/sim-migration-from.yaml');
const toYaml = readRepoFile('tosca/examples/sim-migration-to.yaml');
const fromBody = readRepoFile('tosca/examples/instances/sim-migration-from.json');
const toBody = readRepoFile('tosca/examples/instances/sim-migration-to.json');
const ID = (n: number): string => `5e1f0000-0000-4000-8000-00000000700${n}`;

interface Element {
  deployState: string;
  lockState: string;
  subState?: string;
  migrationState: string;
  definition: { name: string; version: string };
  properties: Record<string, unknown>;
}

interface Instance {
  compositionId: string;
  compositionTargetId?: string;
  deployState: string;
  lockState: string;
  subState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, Element>;
}

describe('update, rollback, migrate, precheck and prepare (PostgreSQL, in-process bus, scripted participants)', () => {
  let runtime: RuntimeHarness;
  let first: ScriptedParticipant;
  let second: ScriptedParticipant;
  let fromId: string;
  let toId: string;

  async function commissionAndPrime(yaml: string, prime = true): Promise<string> {
    const created = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(201);
    const id = (created.body as { compositionId: string }).compositionId;
    if (prime) {
      await runtime.http.put(`${BASE}/compositions/${id}`).send({ primeOrder: 'PRIME' }).expect(202);
      await eventually('PRIMED', async () => {
        const got = await runtime.http.get(`${BASE}/compositions/${id}`).expect(200);
        return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
      });
    }
    return id;
  }

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000' });
    const bus = runtime.app.get(MessageBus);
    first = new ScriptedParticipant(bus, randomUUID(), [SIM_TYPE]);
    second = new ScriptedParticipant(bus, randomUUID(), [SIM_TYPE2]);
    (globalThis as { slowSecond?: string }).slowSecond = second.participantId;
    for (const participant of [first, second]) {
      await participant.start();
      await eventually('the participant to register', async () => {
        const response = await runtime.http.get(`${BASE}/participants/${participant.participantId}`);
        return response.status === 200 ? true : undefined;
      });
    }
    fromId = await commissionAndPrime(fromYaml);
    toId = await commissionAndPrime(toYaml);
  });

  afterAll(async () => {
    await first.stop();
    await second.stop();
    await runtime.close();
  });

  /** Fresh element ids per test, the same in the create and the migrate body. */
  function bodies(): { create: string; migrate: string; ids: Map<string, string> } {
    const ids = new Map([1, 2, 3, 4].map((n) => [ID(n), randomUUID()]));
    const swap = (text: string): string =>
      [...ids]
        .reduce((result, [from, to]) => result.split(from).join(to), text)
        .replace(/SimMigrationInstance/g, `SimMigration-${randomUUID().slice(0, 8)}`);
    return { create: swap(fromBody), migrate: swap(toBody), ids };
  }

  async function instance(instanceId: string, compositionId = fromId): Promise<Instance> {
    return (await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
      .body as Instance;
  }

  async function until(instanceId: string, check: (current: Instance) => boolean, what: string): Promise<Instance> {
    return eventually(what, async () => {
      const current = await instance(instanceId);
      return check(current) ? current : undefined;
    });
  }

  const settled = (deployState: string, lockState: string) => (current: Instance) =>
    current.deployState === deployState &&
    current.lockState === lockState &&
    current.subState === 'NONE' &&
    current.phase === undefined;

  /**
   * FAILED, and every element answered: an update goes to every participant at once, so waiting for FAILED
   * alone returns while another participant's ACK is still on its way and changes the instance afterwards.
   */
  const failedAndAnswered = (current: Instance): boolean =>
    current.stateChangeResult === 'FAILED' &&
    Object.values(current.elements).every(
      (element) =>
        !isInstanceTransitional({
          deployState: element.deployState as DeployState,
          lockState: element.lockState as LockState,
          subState: 'NONE',
        }),
    );

  async function deployedInstance(): Promise<{ instanceId: string; migrate: string; ids: Map<string, string> }> {
    const { create, migrate, ids } = bodies();
    const created = await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances`)
      .send(JSON.parse(create.replace(/COMPOSITIONIDPLACEHOLDER/g, fromId)))
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await runtime.http.put(`${BASE}/compositions/${fromId}/instances/${instanceId}`).send({ deployOrder: 'DEPLOY' });
    await until(instanceId, settled('DEPLOYED', 'LOCKED'), 'DEPLOYED');
    return {
      instanceId,
      ids,
      migrate: migrate
        .replace(/COMPOSITIONIDPLACEHOLDER/g, fromId)
        .replace(/INSTANCEIDPLACEHOLDER/g, instanceId)
        .replace(/COMPOSITIONTARGETIDPLACEHOLDER/g, toId),
    };
  }

  function updateBody(instanceId: string, elementId: string, properties: Record<string, unknown>): object {
    return {
      name: 'ignored',
      version: '1.0.0',
      compositionId: fromId,
      instanceId,
      elements: {
        [elementId]: {
          id: elementId,
          definition: { name: 'acm.example.migration.Starter', version: '1.0.0' },
          properties,
        },
      },
    };
  }

  function received<T>(participant: ScriptedParticipant, instanceId: string, type: string): T[] {
    return participant.stagedMessages(instanceId).filter((message) => message.messageType === type) as T[];
  }

  it('updates properties with before/after DTOs; a completed update has nothing to roll back', async () => {
    const { instanceId, ids } = await deployedInstance();
    const starter = ids.get(ID(1))!;
    await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances`)
      .send(updateBody(instanceId, starter, { myParameterToUpdate: 'updated' }))
      .expect(200);
    const done = await until(instanceId, settled('DEPLOYED', 'LOCKED'), 'DEPLOYED after the update');
    expect(done.elements[starter]?.properties).toMatchObject({
      myParameterToUpdate: 'updated',
      baseUrl: 'http://sim.example:30800/starter',
    });
    const [update] = received<PropertiesUpdate>(first, instanceId, 'PROPERTIES_UPDATE');
    expect(update?.rollback).toBe(false);
    const dto = update?.participantDtoList?.[0]?.elementDtos.find(
      (entry) => entry.instanceElementTarget?.elementId === starter,
    );
    expect(dto?.instanceElement?.inProperties?.['myParameterToUpdate']).toBe('initial');
    expect(dto?.instanceElementTarget?.inProperties?.['myParameterToUpdate']).toBe('updated');

    const refused = await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances/${instanceId}/rollback`)
      .expect(400);
    expect((refused.body as { errorDetails: string }).errorDetails).toContain(
      'Invalid state for rollback, Ac Instance is DEPLOYED',
    );
  });

  it('rolls a failed update back to the old properties (UPDATE_REVERT), and refuses without a snapshot', async () => {
    const { instanceId, ids } = await deployedInstance();
    const starter = ids.get(ID(1))!;
    first.failing.add(starter);
    try {
      await runtime.http
        .post(`${BASE}/compositions/${fromId}/instances`)
        .send(updateBody(instanceId, starter, { myParameterToUpdate: 'broken' }))
        .expect(200);
      await until(instanceId, failedAndAnswered, 'FAILED update, every element answered');
    } finally {
      first.failing.clear();
    }
    const failed = await instance(instanceId);
    expect(failed.deployState).toBe('UPDATING');
    expect(failed.elements[starter]?.properties['myParameterToUpdate']).toBe('broken');

    await runtime.http.post(`${BASE}/compositions/${fromId}/instances/${instanceId}/rollback`).expect(202);
    const restored = await until(instanceId, settled('DEPLOYED', 'LOCKED'), 'DEPLOYED after the rollback');
    expect(restored.stateChangeResult).toBe('NO_ERROR');
    expect(restored.elements[starter]?.properties['myParameterToUpdate']).toBe('initial');
    const updates = received<PropertiesUpdate>(first, instanceId, 'PROPERTIES_UPDATE');
    expect(updates.map((message) => message.rollback)).toEqual([false, true]);
    const revert = updates[1]?.participantDtoList?.[0]?.elementDtos.find(
      (entry) => entry.instanceElementTarget?.elementId === starter,
    );
    expect(revert?.instanceElement?.inProperties?.['myParameterToUpdate']).toBe('broken');
    expect(revert?.instanceElementTarget?.inProperties?.['myParameterToUpdate']).toBe('initial');

    // A failed update whose snapshot is gone: 400, and nothing changes.
    first.failing.add(starter);
    try {
      await runtime.http
        .post(`${BASE}/compositions/${fromId}/instances`)
        .send(updateBody(instanceId, starter, { myParameterToUpdate: 'broken again' }))
        .expect(200);
      await until(instanceId, failedAndAnswered, 'FAILED update, every element answered');
    } finally {
      first.failing.clear();
    }
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    await client.query(`DELETE FROM "${runtime.schema}".automation_composition_rollback WHERE instance_id = $1`, [
      instanceId,
    ]);
    await client.end();
    const before = await instance(instanceId);
    const refused = await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances/${instanceId}/rollback`)
      .expect(400);
    expect((refused.body as { errorDetails: string }).errorDetails).toContain('No rollback snapshot');
    expect(await instance(instanceId)).toEqual(before);
  });

  it('migrates stage by stage, adding and removing elements across two participants', async () => {
    const { instanceId, migrate, ids } = await deployedInstance();
    await runtime.http.post(`${BASE}/compositions/${fromId}/instances`).send(JSON.parse(migrate)).expect(200);
    const done = await eventually('DEPLOYED on the target', async () => {
      const response = await runtime.http.get(`${BASE}/compositions/${toId}/instances/${instanceId}`);
      const current = response.body as Instance;
      return response.status === 200 && current.compositionId === toId && current.phase === undefined
        ? current
        : undefined;
    });
    expect(done).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
    expect(done.compositionTargetId ?? null).toBeNull();
    expect(Object.keys(done.elements).sort()).toEqual([ids.get(ID(1)), ids.get(ID(2)), ids.get(ID(4))].sort());
    expect(Object.values(done.elements).every((element) => element.migrationState === 'DEFAULT')).toBe(true);
    expect(Object.values(done.elements).every((element) => element.definition.version === '2.0.0')).toBe(true);
    // Properties merged: the migrate body changed one key, the stored baseUrl stays.
    expect(done.elements[ids.get(ID(1))!]?.properties).toMatchObject({
      myParameterToUpdate: 'migrated',
      baseUrl: 'http://sim.example:30800/starter',
    });

    const messages = [
      ...received<AutomationCompositionMigration>(first, instanceId, 'AUTOMATION_COMPOSITION_MIGRATION'),
    ];
    expect(messages.map((message) => [message.stage, message.firstStage, message.rollback])).toEqual([
      [0, true, false],
      [1, false, false],
      [2, false, false],
    ]);
    expect(new Set(messages[0]?.participantIdList)).toEqual(new Set([first.participantId, second.participantId]));
    expect(messages[0]?.compositionTargetId).toBe(toId);
    const firstStage = messages[0]!;
    const states = new Map(
      (firstStage.participantUpdatesList ?? []).flatMap((entry) =>
        entry.acElementList.map((element) => [element.id, element.migrationState]),
      ),
    );
    expect(states.get(ids.get(ID(3))!)).toBe('REMOVED');
    expect(states.get(ids.get(ID(4))!)).toBe('NEW');
    expect(states.get(ids.get(ID(1))!)).toBe('DEFAULT');
    const newDto = firstStage.participantDtoList
      ?.flatMap((entry) => entry.elementDtos)
      .find((dto) => dto.instanceElementTarget?.elementId === ids.get(ID(4)));
    expect([newDto?.compositionElement?.state, newDto?.instanceElementTarget?.state]).toEqual(['NOT_PRESENT', 'NEW']);

    const handled = [...first.handled, ...second.handled]
      .filter((work) => work.order === 'MIGRATE' && [...ids.values()].includes(work.elementId))
      .map((work) => `${work.phase}:${[...ids].find(([, id]) => id === work.elementId)![0].slice(-1)}`)
      .sort();
    // Starter [0,1], Bridge [1,2], Sink (removed, source stages) [0,2], Extra (new) [0,2].
    expect(handled).toEqual(['0:1', '0:3', '0:4', '1:1', '1:2', '2:2', '2:3', '2:4']);
  });

  it('rolls a failed migration back stage by stage in descending order (MIGRATION_REVERT)', async () => {
    const { instanceId, migrate, ids } = await deployedInstance();
    const bridge = ids.get(ID(2))!;
    first.failing.add(bridge);
    try {
      await runtime.http.post(`${BASE}/compositions/${fromId}/instances`).send(JSON.parse(migrate)).expect(200);
      await until(instanceId, (current) => current.stateChangeResult === 'FAILED', 'FAILED migration');
    } finally {
      first.failing.clear();
    }
    const failed = await instance(instanceId);
    expect(failed).toMatchObject({ deployState: 'MIGRATING', compositionId: fromId, compositionTargetId: toId });

    await runtime.http.post(`${BASE}/compositions/${fromId}/instances/${instanceId}/rollback`).expect(202);
    const done = await until(instanceId, settled('DEPLOYED', 'LOCKED'), 'DEPLOYED after the rollback');
    expect(done.compositionId).toBe(fromId);
    expect(done.compositionTargetId ?? null).toBeNull();
    expect(Object.keys(done.elements).sort()).toEqual([ids.get(ID(1)), ids.get(ID(2)), ids.get(ID(3))].sort());
    expect(Object.values(done.elements).every((element) => element.definition.version === '1.0.0')).toBe(true);
    expect(done.elements[ids.get(ID(1))!]?.properties['myParameterToUpdate']).toBe('initial');

    const rollbacks = received<AutomationCompositionMigration>(
      first,
      instanceId,
      'AUTOMATION_COMPOSITION_MIGRATION',
    ).filter((message) => message.rollback === true);
    expect(rollbacks.map((message) => message.stage)).toEqual([2, 1, 0]);
    expect(rollbacks[0]?.compositionTargetId).toBe(fromId);
    const marks = new Map(
      (rollbacks[0]?.participantUpdatesList ?? []).flatMap((entry) =>
        entry.acElementList.map((element) => [element.id, [element.orderedState, element.migrationState]]),
      ),
    );
    expect(marks.get(ids.get(ID(4))!)).toEqual(['MIGRATION_REVERT', 'REMOVED']);
    expect(marks.get(ids.get(ID(3))!)).toEqual(['MIGRATION_REVERT', 'DEFAULT']);
  });

  it('prechecks a migration without storing the target; completion clears the sub-state', async () => {
    const { instanceId, migrate } = await deployedInstance();
    first.autoAnswer = false;
    second.autoAnswer = false;
    try {
      await runtime.http
        .post(`${BASE}/compositions/${fromId}/instances`)
        .send({ ...JSON.parse(migrate), precheck: true })
        .expect(200);
      const checking = await instance(instanceId);
      expect(checking).toMatchObject({
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
        subState: 'MIGRATION_PRECHECKING',
      });
      expect(checking.compositionTargetId ?? null).toBeNull();
      expect(Object.values(checking.elements).every((element) => element.definition.version === '1.0.0')).toBe(true);
    } finally {
      first.autoAnswer = true;
      second.autoAnswer = true;
    }
    const [message] = await eventually('the precheck message', () => {
      const list = received<AutomationCompositionMigration>(first, instanceId, 'AUTOMATION_COMPOSITION_MIGRATION');
      return list.length > 0 ? list : undefined;
    });
    expect([message?.precheck, message?.stage, message?.compositionTargetId]).toEqual([true, 0, toId]);
    await first.answerStaged(message!);
    await second.answerStaged(message!);
    const done = await until(instanceId, settled('DEPLOYED', 'LOCKED'), 'precheck done');
    expect(done.compositionId).toBe(fromId);
    expect(done.elements[Object.keys(done.elements)[0]!]?.definition.version).toBe('1.0.0');
  });

  it('refuses bad migrations with ONAP reasons and changes nothing', async () => {
    const { instanceId, migrate, ids } = await deployedInstance();
    const before = await instance(instanceId);
    const unprimed = await commissionAndPrime(
      toYaml.replace('name: acm.example.SimMigration', 'name: x.Unprimed'),
      false,
    );
    const notPrimed = await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances`)
      .send({ ...JSON.parse(migrate), compositionTargetId: unprimed })
      .expect(400);
    expect((notPrimed.body as { errorDetails: string }).errorDetails).toContain(
      `${unprimed} Commissioned automation composition definition not primed (state COMMISSIONED)`,
    );

    const body = JSON.parse(migrate) as { elements: Record<string, { definition: { name: string } }> };
    body.elements[ids.get(ID(1))!]!.definition.name = 'acm.example.migration.Bridge';
    const incompatible = await runtime.http.post(`${BASE}/compositions/${fromId}/instances`).send(body).expect(400);
    expect((incompatible.body as { errorDetails: string }).errorDetails).toContain(
      'acm.example.migration.Starter 1.0.0 is not compatible with acm.example.migration.Bridge 2.0.0',
    );
    expect(await instance(instanceId)).toEqual(before);

    await runtime.http.put(`${BASE}/compositions/${fromId}/instances/${instanceId}`).send({ deployOrder: 'UNDEPLOY' });
    await until(instanceId, settled('UNDEPLOYED', 'NONE'), 'UNDEPLOYED');
    const undeployed = await instance(instanceId);
    const wrongState = await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances`)
      .send({ ...JSON.parse(migrate), precheck: true })
      .expect(400);
    expect((wrongState.body as { errorDetails: string }).errorDetails).toContain(
      'Not valid order MIGRATE_PRECHECK; DeployState: UNDEPLOYED',
    );
    expect(await instance(instanceId)).toEqual(undeployed);
  });

  it('prepares stage by stage from the prepare sets, then reviews', async () => {
    const { create } = bodies();
    const created = await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances`)
      .send(JSON.parse(create.replace(/COMPOSITIONIDPLACEHOLDER/g, fromId)))
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await runtime.http
      .put(`${BASE}/compositions/${fromId}/instances/${instanceId}`)
      .send({ subOrder: 'PREPARE' })
      .expect(202);
    await until(instanceId, settled('UNDEPLOYED', 'NONE'), 'prepared');
    const prepares = [...received<AutomationCompositionPrepare>(first, instanceId, 'AUTOMATION_COMPOSITION_PREPARE')];
    // Starter [0,1], Bridge [0], Sink [0,2]: three stages, one message each.
    expect(prepares.map((message) => [message.preDeploy, message.stage])).toEqual([
      [true, 0],
      [true, 1],
      [true, 2],
    ]);

    await runtime.http.put(`${BASE}/compositions/${fromId}/instances/${instanceId}`).send({ deployOrder: 'DEPLOY' });
    await until(instanceId, settled('DEPLOYED', 'LOCKED'), 'DEPLOYED');
    await runtime.http
      .put(`${BASE}/compositions/${fromId}/instances/${instanceId}`)
      .send({ subOrder: 'REVIEW' })
      .expect(202);
    await until(instanceId, settled('DEPLOYED', 'LOCKED'), 'reviewed');
    const reviews = received<AutomationCompositionPrepare>(first, instanceId, 'AUTOMATION_COMPOSITION_PREPARE').filter(
      (message) => message.preDeploy === false,
    );
    expect(reviews).toHaveLength(1);
  });
});
