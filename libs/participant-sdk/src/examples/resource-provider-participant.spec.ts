import { InMemoryMessageBus } from '@acm/messaging';
import { ManualTimers, ScriptedRuntime, deployOrder, primeOrder, stateChangeOrder } from '@acm/participant-sdk/testing';
import type { Participant } from '@acm/participant-sdk';
import type { ResourceState } from '@acm/participant-sdk/provider';
import type { TestElement } from '@acm/participant-sdk/testing';

import {
  FAKE_RESOURCE_ELEMENT_TYPE,
  FakeResourceService,
  PROVIDER_PARTICIPANT_ID,
  createResourceProviderParticipant,
} from './resource-provider-participant';

const COMPOSITION_ID = 'c0c0c0c0-1111-4222-8333-44445555cafe';
const INSTANCE_ID = 'a1a1a1a1-2222-4333-8444-55556666cafe';
const WANTED = { region: 'eu', size: 'small' };

interface Ack {
  stateChangeResult: string;
  message?: string;
  automationCompositionResultMap: Record<string, { deployState: string; message?: string; outProperties?: unknown }>;
}

describe('resource provider participant (README example) on the fake service', () => {
  let bus: InMemoryMessageBus;
  let runtime: ScriptedRuntime;
  let participant: Participant;
  let service: FakeResourceService;
  let retryTimers: ManualTimers;
  let elementCount = 0;

  beforeEach(async () => {
    bus = new InMemoryMessageBus();
    runtime = new ScriptedRuntime({ bus });
    await runtime.start();
    service = new FakeResourceService();
    retryTimers = new ManualTimers();
    participant = createResourceProviderParticipant({ bus, service, retryTimers, logger: () => undefined });
    await participant.start();
  });

  afterEach(async () => {
    await participant.stop();
    await runtime.close();
    await bus.close();
  });

  function element(properties: Record<string, unknown>): TestElement {
    elementCount += 1;
    return {
      id: `e1e1e1e1-3333-4444-8555-${String(elementCount).padStart(12, '0')}`,
      definition: { name: 'org.example.Resource', version: '1.0.0' },
      typeName: FAKE_RESOURCE_ELEMENT_TYPE.typeName,
      properties,
    };
  }

  const base = { participantId: PROVIDER_PARTICIPANT_ID, compositionId: COMPOSITION_ID };

  async function deploy(target: TestElement): Promise<Ack> {
    await runtime.send(primeOrder({ ...base, elements: [target] }));
    await runtime.waitFor('PARTICIPANT_PRIME_ACK');
    const order = deployOrder({ ...base, instanceId: INSTANCE_ID, elements: [target] });
    await runtime.send(order);
    return await runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === order.messageId);
  }

  async function undeploy(target: TestElement): Promise<Ack> {
    const order = stateChangeOrder({
      ...base,
      instanceId: INSTANCE_ID,
      elements: [target],
      deployOrderedState: 'UNDEPLOY',
    });
    await runtime.send(order);
    return await runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === order.messageId);
  }

  it.each<[string, ResourceState | null, boolean, Record<string, unknown>, string[], string]>([
    ['missing → create', null, false, WANTED, ['getState(db)', 'create(db)'], 'Created db'],
    ['deleted → create', 'deleted', false, WANTED, ['getState(db)', 'create(db)'], 'Created db'],
    [
      'suspended + flag + equal key properties → resume and adopt',
      'suspended',
      true,
      WANTED,
      ['getState(db)', 'resume(db)'],
      'Resumed and adopted the suspended db (adoptExistingOnCreate is true, key properties equal)',
    ],
    [
      'running + flag → adopt',
      'running',
      true,
      WANTED,
      ['getState(db)'],
      'Adopted the running db (adoptExistingOnCreate is true)',
    ],
  ])('%s', async (_, existing, adopt, keys, calls, message) => {
    if (existing !== null) {
      service.seed('db', { state: existing, instanceUid: 'uid-7', keyProperties: WANTED });
    }
    const target = element({ resourceName: 'db', adoptExistingOnCreate: adopt, ...keys });
    const ack = await deploy(target);
    expect(ack.stateChangeResult).toBe('NO_ERROR');
    expect(ack.automationCompositionResultMap[target.id]).toMatchObject({ deployState: 'DEPLOYED', message });
    expect(service.calls).toEqual(calls);
    expect(service.resources.get('db')?.state).toBe('running');
  });

  it.each<[string, ResourceState, boolean, Record<string, unknown>, string]>([
    ['suspended without the flag', 'suspended', false, WANTED, 'refuse (suspended-adoption-not-allowed)'],
    [
      'suspended with other key properties',
      'suspended',
      true,
      { region: 'us', size: 'small' },
      'refuse (suspended-key-properties-differ)',
    ],
    ['running without the flag', 'running', false, WANTED, 'refuse (running-adoption-not-allowed)'],
    ['creating', 'creating', true, WANTED, 'refuse (resource-busy)'],
    ['pending', 'pending', true, WANTED, 'refuse (resource-busy)'],
    ['failed', 'failed', true, WANTED, 'refuse (resource-failed)'],
  ])('%s → FAILED with a diagnostic in the ACK, nothing changed', async (_, state, adopt, keys, decision) => {
    service.seed('db', {
      state,
      instanceUid: 'uid-7',
      statusRaw: `RAW-${state}`,
      operationInProgress: state === 'creating' ? 'create' : null,
      keyProperties: WANTED,
    });
    const target = element({ resourceName: 'db', adoptExistingOnCreate: adopt, ...keys });
    const ack = await deploy(target);
    const result = ack.automationCompositionResultMap[target.id];
    expect(ack.stateChangeResult).toBe('FAILED');
    expect(result?.deployState).toBe('UNDEPLOYED');
    expect(result?.message?.startsWith(`Deploy of element ${target.id} refused: `)).toBe(true);
    expect(result?.message?.split('\n')).toEqual(
      expect.arrayContaining([
        `  decision: ${decision}`,
        `  adoptExistingOnCreate: ${adopt}`,
        '  resource_name: db',
        '  instance_uid: uid-7',
        `  status: ${state}`,
        `  status_raw: RAW-${state}`,
        'Ways out:',
      ]),
    );
    expect(service.calls).toEqual(['getState(db)']);
    expect(service.resources.get('db')?.state).toBe(state);
  });

  it('offers both ways out of a name conflict in the ACK message', async () => {
    service.seed('db', { state: 'running', instanceUid: 'uid-7', keyProperties: WANTED });
    const target = element({ resourceName: 'db', ...WANTED });
    const ack = await deploy(target);
    expect(ack.automationCompositionResultMap[target.id]?.message).toContain(
      [
        'Ways out:',
        '  - change the element property resourceName to a name that is not in use, and deploy again',
        '  - or set adoptExistingOnCreate: true on the element to take the existing resource over, and deploy again',
      ].join('\n'),
    );
  });

  it.each<[string, Record<string, unknown>, string[], ResourceState, string]>([
    ['suspendOnDestroy true → suspend', { suspendOnDestroy: true }, ['suspend(db)'], 'suspended', 'Suspended db'],
    ['suspendOnDestroy by default → suspend', {}, ['suspend(db)'], 'suspended', 'Suspended db'],
    [
      'suspendOnDestroy false → forget, calling nothing',
      { suspendOnDestroy: false },
      [],
      'running',
      'Forgot db: suspendOnDestroy is false, so the resource is left as it is at the service',
    ],
  ])('undeploy with %s', async (_, flags, calls, state, message) => {
    const target = element({ resourceName: 'db', ...WANTED, ...flags });
    expect((await deploy(target)).stateChangeResult).toBe('NO_ERROR');
    service.calls.length = 0;
    const ack = await undeploy(target);
    expect(ack.automationCompositionResultMap[target.id]).toMatchObject({ deployState: 'UNDEPLOYED', message });
    expect(service.calls).toEqual(calls);
    expect(service.resources.get('db')?.state).toBe(state);
  });

  it('retries a 503 after 2 s on the injected timers, then deploys', async () => {
    service.failNext(503);
    const target = element({ resourceName: 'db', ...WANTED });
    service.calls.length = 0;
    const acked = deploy(target);
    await runtime.waitForCount('PARTICIPANT_PRIME_ACK', 1);
    for (let turn = 0; turn < 1000 && retryTimers.active === 0; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(retryTimers.periods).toEqual([2000]);
    retryTimers.tick();
    const ack = await acked;
    expect(ack.stateChangeResult).toBe('NO_ERROR');
    expect(service.calls).toEqual(['getState(db)', 'getState(db)', 'create(db)']);
  });

  it('fails with the call, the attempts and the resource once the retries are spent', async () => {
    const target = element({ resourceName: 'db', ...WANTED });
    service.failNext(502, 502, 502, 502);
    const acked = deploy(target);
    for (let wait = 0; wait < 3; wait += 1) {
      for (let turn = 0; turn < 1000 && retryTimers.active === 0; turn += 1) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      retryTimers.tick();
    }
    const ack = await acked;
    expect(ack.stateChangeResult).toBe('FAILED');
    expect(ack.automationCompositionResultMap[target.id]?.message).toBe(
      [
        `Element ${target.id}: getState(db) failed after 4 attempts (status 502): fake service answered 502`,
        '  resource_name: db',
        '  retries: 3 (transient errors: 429, 502, 503, 504, and 401 on reads)',
        'Ways out:',
        '  - check that the service is reachable and the participant may use it, then order the operation again',
      ].join('\n'),
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no resourceName', { ...WANTED }, 'resourceName: required, the name of the resource at the service'],
    [
      'a flag that is not a boolean',
      { resourceName: 'db', adoptExistingOnCreate: 'yes' },
      'adoptExistingOnCreate: must be true or false, got "yes"',
    ],
  ])('refuses %s without calling the service', async (_, properties, rule) => {
    const target = element(properties);
    const ack = await deploy(target);
    expect(ack.automationCompositionResultMap[target.id]?.message).toBe(`Element ${target.id}: ${rule}`);
    expect(service.calls).toEqual([]);
  });
});
