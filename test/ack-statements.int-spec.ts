import { randomUUID } from 'node:crypto';
import type { AutomationCompositionDeployAck } from '@acm/contracts';
import { MessageBus } from '@acm/messaging';
import { Client } from 'pg';
import { statementKind } from '../bench/sql-counter';
import { OperationEngine } from '../apps/runtime-acm/src/engine/operation-engine';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime, commissionAndPrime, participantRegistered } from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';
import type { PhaseMessage } from './support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };

/** Counts what the process sends to PostgreSQL while `work` runs, by kind (verb and table). */
async function statementsOf(work: () => Promise<void>): Promise<string[]> {
  const prototype = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const kinds: string[] = [];
  prototype.query = function (this: unknown, ...args: unknown[]): unknown {
    const config = args[0];
    const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
    kinds.push(
      /pg_advisory|sum\(in_flight\)|slot_wait IS NOT NULL/.test(text)
        ? `SLOTS ${statementKind(text)}`
        : statementKind(text),
    );
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    prototype.query = original;
  }
  return kinds;
}

/**
 * The SQL of one ACK on the engine's path (OperationEngine.applyInstanceAck, as a batch of one), B1's three-phase
 * deploy (two elements per phase): an ACK that leaves its phase waiting, one that opens the next phase, the last
 * one that completes. docs/performance.md quotes these counts. Without MAX_PARALLEL_ELEMENTS the ACK path holds no
 * statement of the runtime-wide limit.
 */
describe('statements per ACK (PostgreSQL)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000' });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    participant.autoAnswer = false;
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  it('counts the statements of each ACK of a three-phase deploy, none for the runtime-wide limit', async () => {
    const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-three-phase.yaml'));
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as Record<string, unknown>;
    const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const engine = runtime.app.get(OperationEngine);
    const ackOf = (message: PhaseMessage, elementId: string): AutomationCompositionDeployAck => ({
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY_ACK',
      responseTo: message.messageId,
      automationCompositionId: instanceId,
      participantId: participant.participantId,
      replicaId: participant.replicaId,
      stateChangeResult: 'NO_ERROR',
      automationCompositionResultMap: { [elementId]: { deployState: 'DEPLOYED', lockState: 'LOCKED', result: true } },
    });
    const counted: Array<{ step: string; kinds: string[] }> = [];
    for (let phase = 0; phase < 3; phase += 1) {
      const message = await eventually(`phase ${phase}`, () => participant.phaseMessages(instanceId)[phase]);
      const [first, second] = participant.myElements(message);
      counted.push({ step: 'waits', kinds: await statementsOf(() => engine.applyInstanceAck(ackOf(message, first!))) });
      counted.push({
        step: phase < 2 ? 'next phase' : 'completes',
        kinds: await statementsOf(() => engine.applyInstanceAck(ackOf(message, second!))),
      });
    }
    await eventually('DEPLOYED', async () => {
      const read = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`);
      return (read.body as { deployState: string }).deployState === 'DEPLOYED' ? true : undefined;
    });
    // What docs/performance.md quotes ("Statements per ACK"); fewer is fine, more is a regression.
    const most: Record<string, number> = { waits: 10, 'next phase': 13, completes: 12 };
    for (const { step, kinds } of counted) {
      expect(kinds.length).toBeLessThanOrEqual(most[step]!);
      // No statement of the runtime-wide limit, and no second read of the running operation.
      expect(kinds.filter((kind) => kind.startsWith('SLOTS'))).toEqual([]);
      expect(kinds).not.toContain('SELECT acm_operation');
    }
  });
});
