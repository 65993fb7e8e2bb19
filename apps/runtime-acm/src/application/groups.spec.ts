import type { InstanceElement, JsonObject } from '@acm/domain';
import { isDomainError } from '@acm/domain';
import { BufferedSessions, StoreReadModels } from '@acm/persistence';
import type { AutomationCompositionDeploy } from '@acm/contracts';
import { Logger } from '@nestjs/common';

import { CountingIds, EngineFixture } from '../engine/testing/engine-fixture';
import type { SentOrder } from '../engine/testing/engine-fixture';
import { SensitiveValues } from '../security/sensitive-values';
import { groupMemberId, uuidV5 } from './group-members';
import { GroupScalingService } from './group-scaling.service';
import { InstanceProperties } from './instance-properties';
import type { InstanceRequest } from './instantiation.service';
import { InstantiationService } from './instantiation.service';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const EXAMPLE = 'tosca/examples/sim-group.yaml';
const QUEUE = '6a0e0000-0000-4000-8000-00000000e001';
const WORKER = '6a0e0000-0000-4000-8000-00000000e002';
const DISPATCHER = '6a0e0000-0000-4000-8000-00000000e003';

type Reached = Pick<InstanceElement, 'deployState' | 'lockState'>;

function reachedBy(sent: SentOrder): Reached {
  const ordered = (sent.message as { deployOrderedState?: string }).deployOrderedState;
  if (ordered === 'UNDEPLOY') {
    return { deployState: 'UNDEPLOYED', lockState: 'NONE' };
  }
  if (ordered === 'DELETE') {
    return { deployState: 'DELETED', lockState: 'NONE' };
  }
  return { deployState: 'DEPLOYED', lockState: 'LOCKED' };
}

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (isDomainError(error)) {
      return `${error.code}: ${error.message}`;
    }
    throw error;
  }
  throw new Error('the call was not refused');
}

interface Setup {
  readonly fixture: EngineFixture;
  readonly service: InstantiationService;
  readonly compositionId: string;
  readonly body: (count?: number, dispatcher?: JsonObject) => InstanceRequest;
}

async function setUp(): Promise<Setup> {
  const fixture = new EngineFixture();
  const definition = await fixture.definition(EXAMPLE, () => P1);
  await fixture.unitOfWork.transaction((store) =>
    store.participants.save({
      participantId: P1,
      participantSupportedElementTypes: {},
      replicas: { r1: { replicaId: 'r1', participantState: 'ON_LINE', lastMsg: fixture.clock.now() } },
    }),
  );
  const service = new InstantiationService(
    fixture.unitOfWork,
    fixture.templates,
    fixture.clock,
    new CountingIds(),
    fixture.engine,
    new InstanceProperties(fixture.config, fixture.clock),
    new SensitiveValues(fixture.config),
    new BufferedSessions(fixture.unitOfWork),
    new StoreReadModels(fixture.unitOfWork),
  );
  const element = (id: string, name: string, extra: { count?: number; properties?: JsonObject } = {}) => ({
    id,
    definition: { name: `acm.example.group.${name}`, version: '1.0.0' },
    description: null,
    properties: {},
    ...extra,
  });
  const body = (count?: number, dispatcher: JsonObject = {}): InstanceRequest => ({
    compositionId: definition.compositionId,
    name: 'group',
    version: '1.0.0',
    description: null,
    derivedFrom: null,
    metadata: null,
    elements: [
      element(QUEUE, 'Queue'),
      element(WORKER, 'Worker', count === undefined ? {} : { count }),
      element(DISPATCHER, 'Dispatcher', { properties: dispatcher }),
    ],
  });
  return { fixture, service, compositionId: definition.compositionId, body };
}

/** `Worker #2` for a member, the short node template name for another element. */
function labelOf(element: InstanceElement | undefined): string {
  const short = element?.definition.name.split('.').at(-1) ?? '?';
  return element?.description?.startsWith('Element') === false ? element.description : short;
}

/**
 * Answers every message, one element at a time in the order the messages describe them, and returns one line per
 * message: its ordered state and the elements it sets going.
 */
async function settle(
  fixture: EngineFixture,
  instanceId: string,
  sentProperties: Map<string, unknown> = new Map(),
): Promise<string[]> {
  const lines: string[] = [];
  for (let queued = await fixture.take(); queued.length > 0; queued = await fixture.take()) {
    const current = (await fixture.current(instanceId))!;
    for (const sent of queued.filter((message) => message.messageType !== 'PARTICIPANT_SYNC_MSG')) {
      const ids = sent.described[P1] ?? [];
      const deploy = sent.message as AutomationCompositionDeploy;
      for (const element of (deploy.participantUpdatesList ?? []).flatMap((entry) => entry.acElementList)) {
        sentProperties.set(element.id, element.properties);
      }
      const ordered =
        (sent.message as { deployOrderedState?: string }).deployOrderedState ??
        sent.messageType.replace('AUTOMATION_COMPOSITION_', '');
      lines.push(`${ordered} ${ids.map((id) => labelOf(current.elements[id] ?? undefined)).join(', ')}`);
      for (const id of ids) {
        await fixture.engine.applyInstanceAck(fixture.ackOf(sent, P1, reachedBy(sent), { elementIds: [id] }));
      }
    }
  }
  return lines;
}

describe('groups through InstantiationService and the engine (in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('stores the members of a group as ordinary elements with derived ids and substituted values', async () => {
    const { service, compositionId, body } = await setUp();
    const { instanceId } = await service.create(compositionId, body());
    const instance = await service.get(compositionId, instanceId);
    const workers = Object.values(instance.elements).filter((element) => element.definition.name.endsWith('Worker'));

    expect(workers.map((element) => [element.id, element.description, element.properties['baseUrl']]).sort()).toEqual(
      [
        [WORKER, 'acm.example.group.Worker #0', 'http://sim.example:30800/worker-0-of-3'],
        [groupMemberId(WORKER, 1), 'acm.example.group.Worker #1', 'http://sim.example:30800/worker-1-of-3'],
        [groupMemberId(WORKER, 2), 'acm.example.group.Worker #2', 'http://sim.example:30800/worker-2-of-3'],
      ].sort(),
    );
    expect(Object.keys(instance.elements)).toHaveLength(5);
  });

  it('refuses a count outside the bounds, naming the field, and writes nothing', async () => {
    const { service, compositionId, body } = await setUp();

    expect(await refusal(service.create(compositionId, body(7)))).toBe(
      `VALIDATION_FAILED: elements["${WORKER}"].count: count 7 is outside the group's bounds 1..6 (the node template's metadata count_min, count_max)`,
    );
    expect(await service.list({ compositionId })).toEqual([]);
  });

  it('deploys every member before what depends on the group, scales up, then removes the highest indexes in reverse', async () => {
    const { fixture, service, compositionId, body } = await setUp();
    const { instanceId } = await service.create(compositionId, body(2));
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    const deploy = await settle(fixture, instanceId);

    expect(deploy).toEqual([
      'DEPLOY Queue',
      'DEPLOY acm.example.group.Worker #0, acm.example.group.Worker #1',
      'DEPLOY Dispatcher',
    ]);

    await service.update(compositionId, { ...body(4), instanceId, elements: [{ ...body(4).elements[1]! }] });
    const up = await settle(fixture, instanceId);
    const scaled = await service.get(compositionId, instanceId);

    expect(up).toEqual(['DEPLOY acm.example.group.Worker #2, acm.example.group.Worker #3']);
    expect(scaled.deployState).toBe('DEPLOYED');
    expect(scaled.elements[groupMemberId(WORKER, 3)]).toMatchObject({
      deployState: 'DEPLOYED',
      properties: { baseUrl: 'http://sim.example:30800/worker-3-of-4' },
    });

    await service.update(compositionId, { ...body(1), instanceId, elements: [{ ...body(1).elements[1]! }] });
    const down = await settle(fixture, instanceId);
    const after = await service.get(compositionId, instanceId);

    expect(down).toEqual([
      'UNDEPLOY acm.example.group.Worker #3',
      'UNDEPLOY acm.example.group.Worker #2',
      'UNDEPLOY acm.example.group.Worker #1',
      'DELETE acm.example.group.Worker #3',
      'DELETE acm.example.group.Worker #2',
      'DELETE acm.example.group.Worker #1',
    ]);
    expect(after.deployState).toBe('DEPLOYED');
    expect(Object.keys(after.elements).sort()).toEqual([QUEUE, WORKER, DISPATCHER].sort());
  });

  it("resolves a reference to a group's member by index when the referencing element is dispatched", async () => {
    const { fixture, service, compositionId, body } = await setUp();
    const reference = { get_property: ['acm.example.group.Worker', 2, 'baseUrl'] };
    const { instanceId } = await service.create(compositionId, body(3, { baseUrl: reference }));
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    const sent = new Map<string, unknown>();
    await settle(fixture, instanceId, sent);

    expect(sent.get(DISPATCHER)).toMatchObject({ baseUrl: 'http://sim.example:30800/worker-2-of-3' });
  });

  it('refuses a reference to a member index the instance does not have, naming the reference', async () => {
    const { service, compositionId, body } = await setUp();
    const reference = { get_attribute: ['acm.example.group.Worker', 2, 'url'] };

    expect(await refusal(service.create(compositionId, body(2, { baseUrl: reference })))).toContain(
      'get_attribute [acm.example.group.Worker, 2, url]: member index 2 is out of bounds, acm.example.group.Worker has 2 member(s) in this instance (indexes 0..1)',
    );
  });

  it('refuses a count on an element that is not a group member 0', async () => {
    const { service, compositionId, body } = await setUp();
    const { instanceId } = await service.create(compositionId, body());

    expect(
      await refusal(
        service.update(compositionId, { ...body(), instanceId, elements: [{ ...body().elements[0]!, count: 2 }] }),
      ),
    ).toBe(
      `VALIDATION_FAILED: elements["${QUEUE}"].count: applies only to an element of a group (a node template with count)`,
    );
  });
});

describe('groups through MIGRATE and its precheck (in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  /** A deployed instance of the group example with `count` workers, and a second primed copy of it to migrate to. */
  async function deployedWithTarget(count: number) {
    const setup = await setUp();
    const { fixture, service, compositionId, body } = setup;
    const target = await fixture.definition(EXAMPLE, () => P1);
    const { instanceId } = await service.create(compositionId, body(count));
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    await settle(fixture, instanceId);
    const migration = (elements: InstanceRequest['elements'], precheck = false) => ({
      ...body(),
      instanceId,
      compositionTargetId: target.compositionId,
      ...(precheck ? { precheck } : {}),
      elements,
    });
    /** The elements a migration (or its precheck) with this body would start with: id, migration state, baseUrl. */
    const planned = async (request: ReturnType<typeof migration>): Promise<string[]> => {
      const { prepared } = await fixture.unitOfWork.read((store) => service.planUpdate(store, compositionId, request));
      return Object.values(prepared.elements)
        .filter((element) => element.definition.name === 'acm.example.group.Worker')
        .map((element) => `${element.id} ${element.migrationState} ${String(element.properties['baseUrl'])}`)
        .sort();
    };
    return { ...setup, instanceId, target, migration, planned };
  }

  const worker = (id: string, state: string, index: number, count: number): string =>
    `${id} ${state} http://sim.example:30800/worker-${index}-of-${count}`;

  it("keeps a group's members when the body lists its member 0 only, and removes none", async () => {
    const { body, migration, planned } = await deployedWithTarget(2);

    expect(await planned(migration(body().elements))).toEqual(
      [worker(WORKER, 'DEFAULT', 0, 2), worker(groupMemberId(WORKER, 1), 'DEFAULT', 1, 2)].sort(),
    );
  });

  it('adds members as NEW elements when the body raises the count, with their own substituted values', async () => {
    const { body, migration, planned } = await deployedWithTarget(2);

    expect(await planned(migration(body(3).elements))).toEqual(
      [
        worker(WORKER, 'DEFAULT', 0, 3),
        worker(groupMemberId(WORKER, 1), 'DEFAULT', 1, 3),
        worker(groupMemberId(WORKER, 2), 'NEW', 2, 3),
      ].sort(),
    );
  });

  it('marks the highest indexes REMOVED when the body lowers the count', async () => {
    const { body, migration, planned } = await deployedWithTarget(3);

    expect(await planned(migration(body(1).elements))).toEqual(
      [
        worker(WORKER, 'DEFAULT', 0, 1),
        worker(groupMemberId(WORKER, 1), 'REMOVED', 1, 3),
        worker(groupMemberId(WORKER, 2), 'REMOVED', 2, 3),
      ].sort(),
    );
  });

  it('migrates the instance with a new member, which the participant is asked to create', async () => {
    const { fixture, service, compositionId, instanceId, target, body, migration } = await deployedWithTarget(2);

    await service.update(compositionId, migration(body(3).elements));
    const sent = await settle(fixture, instanceId);
    const after = await service.get(target.compositionId, instanceId);

    expect(sent).toEqual([
      'MIGRATION Queue, acm.example.group.Worker #0, acm.example.group.Worker #1, acm.example.group.Worker #2, Dispatcher',
    ]);
    expect(after).toMatchObject({ compositionId: target.compositionId, deployState: 'DEPLOYED' });
    expect(after.elements[groupMemberId(WORKER, 2)]).toMatchObject({
      deployState: 'DEPLOYED',
      migrationState: 'DEFAULT',
      description: 'acm.example.group.Worker #2',
      properties: { baseUrl: 'http://sim.example:30800/worker-2-of-3' },
    });
    expect(Object.keys(after.elements)).toHaveLength(5);
  });

  it('accepts a precheck body copied from GET (every member listed) as the same members', async () => {
    const { fixture, service, compositionId, instanceId, migration, planned } = await deployedWithTarget(3);
    const listed = Object.values((await service.get(compositionId, instanceId)).elements).map((element) => ({
      id: element.id,
      definition: element.definition,
      description: element.description,
      properties: element.properties,
    }));

    expect(await planned(migration(listed, true))).toEqual(
      [0, 1, 2].map((index) => worker(index === 0 ? WORKER : groupMemberId(WORKER, index), 'DEFAULT', index, 3)).sort(),
    );
    await service.update(compositionId, migration(listed, true));
    expect(await settle(fixture, instanceId)).toHaveLength(1);
    expect((await service.get(compositionId, instanceId)).subState).toBe('NONE');
  });

  it("refuses a count outside the target group's bounds, naming the field", async () => {
    const { body, migration, planned } = await deployedWithTarget(2);

    await expect(planned(migration(body(9).elements))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `elements["${WORKER}"].count: count 9 is outside the group's bounds 1..6 (the node template's metadata count_min, count_max)`,
    });
  });
});

describe('the scaling webhook of a group (in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  async function deployedGroup(count: number) {
    const setup = await setUp();
    const { fixture, service, compositionId, body } = setup;
    const { instanceId } = await service.create(compositionId, body(count));
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    await settle(fixture, instanceId);
    const scaling = new GroupScalingService(
      new StoreReadModels(fixture.unitOfWork),
      fixture.templates,
      service,
      fixture.clock,
      fixture.config,
      fixture.unitOfWork.audit(),
    );
    const target = { compositionId, instanceId, group: 'acm.example.group.Worker' };
    const { token } = await scaling.scaleUrl(target, 3600, 'http://runtime');
    return { ...setup, instanceId, scaling, target, token };
  }

  it('adds a member per call as an UPDATE naming the caller, and refuses the next call during the cooldown', async () => {
    const { fixture, service, compositionId, instanceId, scaling, target, token } = await deployedGroup(2);

    expect(await scaling.scale(target, token, '192.0.2.7')).toEqual({
      group: target.group,
      effect: 'SCALED',
      from: 2,
      to: 3,
    });
    expect(await settle(fixture, instanceId)).toEqual(['DEPLOY acm.example.group.Worker #2']);
    const ordered = (await fixture.events(instanceId)).filter((event) => event.event === 'ORDERED').at(-1);
    expect(ordered?.actor).toMatchObject({
      kind: 'request',
      user: 'scale-url acm.example.group.Worker from 192.0.2.7',
    });

    fixture.clock.advance(20_000);
    expect(await refusal(scaling.scale(target, token, '192.0.2.7'))).toBe(
      'SCALING_REFUSED: group acm.example.group.Worker: a scaling call is refused during the cooldown, 40 s left',
    );

    fixture.clock.advance(40_000);
    await scaling.scale(target, token, '192.0.2.7');
    await settle(fixture, instanceId);
    expect(Object.keys((await service.get(compositionId, instanceId)).elements)).toHaveLength(6);
  });

  it('refuses a call while another operation runs on the instance, with the reason', async () => {
    const { fixture, service, compositionId, instanceId, scaling, target, token } = await deployedGroup(2);
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'UNDEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });

    const refused = await refusal(scaling.scale(target, token, '192.0.2.7'));

    expect(refused).toMatch(
      /^SCALING_REFUSED: group acm\.example\.group\.Worker: the instance cannot scale now: .*UNDEPLOYING/,
    );
    await settle(fixture, instanceId);
  });

  it('refuses a malformed token (401), a token of another group or instance and an expired one (403)', async () => {
    const { fixture, scaling, target, token } = await deployedGroup(1);

    expect(await refusal(scaling.scale(target, 'nonsense', 'a'))).toMatch(/^UNAUTHENTICATED/);
    expect(await refusal(scaling.scale({ ...target, group: 'acm.example.group.Queue' }, token, 'a'))).toMatch(
      /^FORBIDDEN/,
    );
    fixture.clock.advance(3_600_000);
    expect(await refusal(scaling.scale(target, token, 'a'))).toMatch(/^FORBIDDEN/);
  });

  it('refuses a scale URL for an element that is not a group with a policy', async () => {
    const { scaling, target } = await deployedGroup(1);

    expect(await refusal(scaling.scaleUrl({ ...target, group: 'acm.example.group.Queue' }, 60, 'http://r'))).toMatch(
      /^NOT_FOUND: group acm\.example\.group\.Queue: no node template/,
    );
  });

  it('changes nothing at the upper bound', async () => {
    const { scaling, target, token } = await deployedGroup(6);

    expect(await scaling.scale(target, token, 'a')).toEqual({
      group: target.group,
      effect: 'UNCHANGED',
      from: 6,
      to: 6,
    });
  });
});

describe('uuidV5', () => {
  it('gives the RFC 4122 example id (DNS namespace, www.example.com)', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });
});
