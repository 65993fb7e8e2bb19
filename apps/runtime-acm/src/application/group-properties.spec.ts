import type { AutomationComposition, InstanceElement } from '@acm/domain';
import { memberIndexOf } from '@acm/domain';
import { BufferedSessions, StoreReadModels } from '@acm/persistence';
import { Logger } from '@nestjs/common';
import fc from 'fast-check';

import { CountingIds, EngineFixture } from '../engine/testing/engine-fixture';
import type { SentOrder } from '../engine/testing/engine-fixture';
import { SensitiveValues } from '../security/sensitive-values';
import { InstanceProperties } from './instance-properties';
import type { InstanceRequest } from './instantiation.service';
import { InstantiationService } from './instantiation.service';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const QUEUE = '6a0e0000-0000-4000-8000-00000000e001';
const WORKER = '6a0e0000-0000-4000-8000-00000000e002';
const DISPATCHER = '6a0e0000-0000-4000-8000-00000000e003';
const WORKER_NAME = 'acm.example.group.Worker';

/** What the graph of tosca/examples/sim-group.yaml says each element waits for going up, by node template. */
const DEPENDS_ON: Record<string, string[]> = {
  'acm.example.group.Queue': [],
  [WORKER_NAME]: ['acm.example.group.Queue'],
  'acm.example.group.Dispatcher': [WORKER_NAME],
};

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

function reachedBy(sent: SentOrder): Pick<InstanceElement, 'deployState' | 'lockState'> {
  const ordered = (sent.message as { deployOrderedState?: string }).deployOrderedState;
  if (ordered === 'UNDEPLOY') {
    return { deployState: 'UNDEPLOYED', lockState: 'NONE' };
  }
  if (ordered === 'DELETE') {
    return { deployState: 'DELETED', lockState: 'NONE' };
  }
  return { deployState: 'DEPLOYED', lockState: 'LOCKED' };
}

/** DEPLOY, UNDEPLOY or DELETE for a phase message; the message type for the others (ONAP's in-place UPDATE). */
function orderedOf(sent: SentOrder): string {
  if (sent.messageType === 'AUTOMATION_COMPOSITION_DEPLOY') {
    return 'DEPLOY';
  }
  return (sent.message as { deployOrderedState?: string }).deployOrderedState ?? sent.messageType;
}

/**
 * Answers every message, one element at a time in a random order across the messages queued so far, and checks at
 * each dispatch: an element set deploying only once everything it depends on is DEPLOYED; a removed member set
 * undeploying or deleting only once every removed member above it left that step.
 */
async function settleChecking(fixture: EngineFixture, instanceId: string, next: () => number): Promise<void> {
  const pending: Array<{ sent: SentOrder; id: string }> = [];
  const read = async (): Promise<AutomationComposition> => (await fixture.current(instanceId))!;
  for (;;) {
    const queued = (await fixture.take()).filter((sent) => sent.messageType !== 'PARTICIPANT_SYNC_MSG');
    if (queued.length > 0) {
      const current = await read();
      for (const sent of queued) {
        for (const id of sent.described[P1] ?? []) {
          expectDispatchAllowed(current, id, orderedOf(sent));
          pending.push({ sent, id });
        }
      }
    }
    if (pending.length === 0) {
      return;
    }
    const [work] = pending.splice(Math.floor(next() * pending.length), 1);
    await fixture.engine.applyInstanceAck(
      fixture.ackOf(work!.sent, P1, reachedBy(work!.sent), { elementIds: [work!.id] }),
    );
  }
}

function expectDispatchAllowed(instance: AutomationComposition, id: string, ordered: string): void {
  const element = instance.elements[id]!;
  const all = Object.values(instance.elements);
  if (ordered === 'DEPLOY') {
    const awaited = all.filter((other) => DEPENDS_ON[element.definition.name]!.includes(other.definition.name));
    expect(awaited.filter((other) => other.deployState !== 'DEPLOYED').map((other) => other.id)).toEqual([]);
    return;
  }
  if (element.migrationState === 'REMOVED') {
    const index = memberIndexOf(element)!;
    const above = all.filter(
      (other) =>
        other.definition.name === element.definition.name &&
        other.migrationState === 'REMOVED' &&
        memberIndexOf(other)! > index,
    );
    const stillInStep = above.filter((other) =>
      ordered === 'UNDEPLOY' ? other.deployState === 'UNDEPLOYING' : other.deployState !== 'UNDEPLOYED',
    );
    expect(stillInStep.map((other) => other.id)).toEqual([]);
  }
}

describe('groups, property-based (fast-check, in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('deploys members after what they depend on and before what depends on the group, adds and removes members in order, and ends with exactly the count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
        fc.integer(),
        async (initial, counts, seed) => {
          const next = random(seed);
          const fixture = new EngineFixture();
          const definition = await fixture.definition('tosca/examples/sim-group.yaml', () => P1);
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
          const element = (id: string, name: string, count?: number) => ({
            id,
            definition: { name: `acm.example.group.${name}`, version: '1.0.0' },
            description: null,
            properties: {},
            ...(count === undefined ? {} : { count }),
          });
          const body = (count: number): InstanceRequest => ({
            compositionId: definition.compositionId,
            name: 'group',
            version: '1.0.0',
            description: null,
            derivedFrom: null,
            metadata: null,
            elements: [element(QUEUE, 'Queue'), element(WORKER, 'Worker', count), element(DISPATCHER, 'Dispatcher')],
          });
          const { instanceId } = await service.create(definition.compositionId, body(initial));
          await service.changeState(definition.compositionId, instanceId, {
            deployOrder: 'DEPLOY',
            lockOrder: 'NONE',
            subOrder: 'NONE',
          });
          await settleChecking(fixture, instanceId, next);
          for (const count of counts) {
            await service.update(definition.compositionId, {
              ...body(count),
              instanceId,
              elements: [element(WORKER, 'Worker', count)],
            });
            await settleChecking(fixture, instanceId, next);
            const after = (await fixture.current(instanceId))!;
            const workers = Object.values(after.elements).filter((member) => member.definition.name === WORKER_NAME);

            expect(after.deployState).toBe('DEPLOYED');
            expect(workers.map((member) => memberIndexOf(member)).sort((a, b) => a! - b!)).toEqual(
              Array.from({ length: count }, (_unused, index) => index),
            );
            expect(workers.every((member) => member.deployState === 'DEPLOYED')).toBe(true);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
