import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  commissionAndPrime,
  createInstanceFrom,
  instanceOf,
  orderInstance,
  readRepoFile,
} from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const threePhaseYaml = readRepoFile('tosca/examples/sim-three-phase.yaml');
const threePhaseInstance = readRepoFile('tosca/examples/instances/sim-three-phase.json');

type PhaseMessage = ReturnType<ScriptedParticipant['phaseMessages']>[number];

/** One step of a participant's noisy answering: a right ACK, or a duplicate, stale or misplaced one. */
type Step =
  | { readonly kind: 'answer'; readonly pick: number }
  | { readonly kind: 'duplicate'; readonly pick: number }
  | { readonly kind: 'unknownMessage'; readonly pick: number }
  | { readonly kind: 'otherPhase'; readonly pick: number };

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom('answer', 'duplicate', 'unknownMessage', 'otherPhase'),
  pick: fc.nat({ max: 1000 }),
});

interface Instance {
  deployState: string;
  lockState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, { deployState: string }>;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
}

/**
 * Fault suite scenario 5, where it runs fastest on the real store: whatever mix of duplicate, stale
 * (answering no known message) and out-of-phase ACKs a participant sends, interleaved in any order with
 * the right ones, a deploy opens each phase once, in order, never regresses an element, and completes.
 */
describe('ACK handling properties (PostgreSQL, in-process bus, fast-check)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }, { autoAnswer: false }));
    compositionId = await commissionAndPrime(runtime, threePhaseYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function deploying(): Promise<{ instanceId: string; elementIds: string[] }> {
    const created = await createInstanceFrom(runtime, compositionId, threePhaseInstance);
    await orderInstance(runtime, compositionId, created.instanceId, { deployOrder: 'DEPLOY' });
    return created;
  }

  const instance = (instanceId: string): Promise<Instance> => instanceOf(runtime, compositionId, instanceId);

  it('opens each phase once and in order, never regresses an element, and completes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 24 }), async (steps) => {
        const { instanceId, elementIds } = await deploying();
        await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
        const answered = new Map<string, PhaseMessage>();
        const pending = (): Array<[PhaseMessage, string]> => {
          const latest = participant.phaseMessages(instanceId).at(-1)!;
          return participant
            .myElements(latest)
            .filter((elementId) => !answered.has(elementId))
            .map((elementId) => [latest, elementId]);
        };
        const deployedSoFar = new Set<string>();
        let highestPhase = 0;
        const observe = async (): Promise<void> => {
          const current = await instance(instanceId);
          for (const elementId of deployedSoFar) {
            expect(current.elements[elementId]?.deployState).toBe('DEPLOYED');
          }
          for (const [elementId, element] of Object.entries(current.elements)) {
            if (element.deployState === 'DEPLOYED') {
              deployedSoFar.add(elementId);
            }
          }
          if (current.phase !== undefined) {
            expect(current.phase).toBeGreaterThanOrEqual(highestPhase);
            highestPhase = current.phase;
          }
          expect(current.stateChangeResult).toBe('NO_ERROR');
        };
        for (const { kind, pick } of steps) {
          const latest = participant.phaseMessages(instanceId).at(-1)!;
          if (kind === 'answer') {
            const choices = pending();
            const choice = choices[pick % Math.max(choices.length, 1)];
            if (choice) {
              answered.set(choice[1], choice[0]);
              await participant.ack(choice[0], [choice[1]]);
            }
          } else if (kind === 'duplicate') {
            const sent = [...answered.entries()];
            const again = sent[pick % Math.max(sent.length, 1)];
            if (again) {
              await participant.ack(again[1], [again[0]]);
            }
          } else if (kind === 'unknownMessage') {
            const elementId = elementIds[pick % elementIds.length]!;
            await participant.ack({ ...latest, messageId: randomUUID() }, [elementId], {
              automationCompositionResultMap: {
                [elementId]: { deployState: 'UNDEPLOYED', lockState: 'NONE', result: true },
              },
            });
          } else {
            const mine = new Set(participant.myElements(latest));
            const others = elementIds.filter((elementId) => !mine.has(elementId));
            const elementId = others[pick % Math.max(others.length, 1)];
            if (elementId) {
              await participant.ack(latest, [elementId], {
                automationCompositionResultMap: {
                  [elementId]: { deployState: 'UNDEPLOYED', lockState: 'NONE', result: true },
                },
              });
            }
          }
          await observe();
        }
        // Then every right ACK not sent yet, phase after phase, until the deploy completes.
        for (let guard = 0; guard < elementIds.length + 3; guard += 1) {
          const choices = await eventually('an element to answer, or the deploy done', async () => {
            const open = pending();
            if (open.length > 0) {
              return open;
            }
            return (await instance(instanceId)).deployState === 'DEPLOYED' ? [] : undefined;
          });
          if (choices.length === 0) {
            break;
          }
          for (const [message, elementId] of choices) {
            answered.set(elementId, message);
            await participant.ack(message, [elementId]);
          }
          await observe();
        }
        const done = await eventually('DEPLOYED', async () => {
          const current = await instance(instanceId);
          return current.deployState === 'DEPLOYED' ? current : undefined;
        });
        expect(done).toMatchObject({ lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
        expect(Object.values(done.elements).every((element) => element.deployState === 'DEPLOYED')).toBe(true);
        expect(participant.phaseMessages(instanceId).map((message) => message.startPhase)).toEqual([0, 1, 2]);
        const history = (
          await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)
        ).body as { events: HistoryEvent[] };
        const phases = history.events.filter((event) => event.event === 'PHASE_STARTED').map((e) => e.detail['phase']);
        expect(phases).toEqual([0, 1, 2]);
        expect(history.events.filter((event) => event.event === 'FAILED')).toEqual([]);
        // Duplicates change nothing, not even the history: one result per element.
        const results = history.events
          .filter((event) => event.event === 'ELEMENT_RESULT')
          .map((event) => String(event.detail['elementId']));
        expect([...results].sort()).toEqual([...elementIds].sort());
      }),
      { numRuns: 15 },
    );
    // Fifteen deploys of up to 24 steps each: the suite's 60 s ceiling fits a quiet machine, not a loaded one.
  }, 300_000);
});
