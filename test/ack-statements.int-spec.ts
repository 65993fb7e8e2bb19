import type { AutomationCompositionDeployAck } from '@acm/contracts';
import { Client } from 'pg';
import { statementKind } from '../bench/sql-counter';
import { OperationEngine } from '../apps/runtime-acm/src/engine/operation-engine';
import { EventFeedFollower } from '../apps/runtime-acm/src/live/event-feed-follower';
import { EventFeed } from '@acm/domain';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, commissionAndPrime } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import type { PhaseMessage } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

/** The kinds of statement sent as named prepared statements (a `name` in pg's query config) while counted. */
const namedKinds = new Set<string>();

/** What the process sends to PostgreSQL while `work` runs, by kind (verb and table), per connection. */
async function statementsByConnection(work: () => Promise<void>): Promise<string[][]> {
  const prototype = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const byClient = new Map<unknown, string[]>();
  prototype.query = function (this: unknown, ...args: unknown[]): unknown {
    const config = args[0];
    const text = typeof config === 'string' ? config : ((config as { text?: string } | undefined)?.text ?? '');
    const kind = /pg_advisory|sum\(in_flight\)|slot_wait IS NOT NULL/.test(text)
      ? `SLOTS ${statementKind(text)}`
      : statementKind(text);
    const kinds = byClient.get(this) ?? [];
    byClient.set(this, [...kinds, kind]);
    if (typeof (config as { name?: unknown } | undefined)?.name === 'string') {
      namedKinds.add(kind);
    }
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    prototype.query = original;
  }
  return [...byClient.values()];
}

/**
 * The statements of the one transaction of `work` that sends `marker`, from its BEGIN to its COMMIT: a connection
 * holds a transaction to its end, so what the runtime's background work (the relay, the feed, the delivery of
 * notifications, the sweeps) sends meanwhile goes over other connections and is left out.
 */
async function transactionOf(marker: string, work: () => Promise<void>): Promise<string[]> {
  const connections = await statementsByConnection(work);
  const found = connections.filter((kinds) => kinds.includes(marker));
  expect(found).toHaveLength(1);
  const kinds = found[0]!;
  const at = kinds.indexOf(marker);
  const begin = kinds.lastIndexOf('BEGIN', at);
  const commit = kinds.indexOf('COMMIT', at);
  return kinds.slice(begin, commit === -1 ? undefined : commit + 1);
}

/** The lock-and-load every order and every ACK starts its transaction with. */
const LOCK_AND_LOAD = 'SELECT automation_composition_element';

/** The statements of an order's transaction, and of an ACK's. */
const ORDER_STATEMENTS = [
  'BEGIN',
  'SELECT automation_composition_element',
  'SELECT readContext',
  'WITH saveAll',
  'COMMIT',
];

/**
 * The SQL of one REST order and of one ACK on the engine's path (OperationEngine.applyInstanceAck, as a batch of one), B1's three-phase
 * deploy (two elements per phase): an ACK that leaves its phase waiting, one that opens the next phase, the last
 * one that completes. docs/performance.md quotes these counts. Without MAX_PARALLEL_ELEMENTS the ACK path holds no
 * statement of the runtime-wide limit.
 */
describe('statements per ACK (PostgreSQL)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }, { autoAnswer: false }));
    // The event feed numbers what each commit wrote in a pass of its own, after the commit and outside the order's or
    // the ACK's transaction; it is stopped here so that the pass counted below finds rows left to number.
    await runtime.app.get(EventFeedFollower).beforeApplicationShutdown();
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  it('counts the statements of an order and of each ACK of a three-phase deploy, none for the runtime-wide limit', async () => {
    const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-three-phase.yaml'));
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as Record<string, unknown>;
    const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const order = (deployOrder: string): Promise<string[]> =>
      transactionOf(LOCK_AND_LOAD, async () => {
        await runtime.http
          .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
          .send({ deployOrder })
          .expect(202);
      });
    // An order is one lock-and-load, one read of the rest it needs (definition, running operation, participants),
    // one write of everything it changes (the relay's DELETE after the publish is a transaction of its own).
    expect(await order('DEPLOY')).toEqual(ORDER_STATEMENTS);
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
      counted.push({
        step: 'waits',
        kinds: await transactionOf(LOCK_AND_LOAD, () => engine.applyInstanceAck(ackOf(message, first!))),
      });
      counted.push({
        step: phase < 2 ? 'next phase' : 'completes',
        kinds: await transactionOf(LOCK_AND_LOAD, () => engine.applyInstanceAck(ackOf(message, second!))),
      });
    }
    await eventually('DEPLOYED', async () => {
      const read = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`);
      return (read.body as { deployState: string }).deployState === 'DEPLOYED' ? true : undefined;
    });
    // Every ACK, whatever it decides: the lock-and-load, one read of the running and answered operations and the
    // definition, one write of the instance, operation, message record, answer, outbox and history rows. What
    // docs/performance.md quotes ("Statements per ACK"); more is a regression.
    for (const { kinds } of counted) {
      expect(kinds).toEqual(ORDER_STATEMENTS);
    }
    // The feed's pass after a burst of commits, whatever its size: a transaction that numbers every row not yet
    // numbered (BEGIN, the head's row lock, one UPDATE of the rows, one of the head, COMMIT).
    expect(
      await transactionOf('SELECT acm_event_feed_head', async () => void (await runtime.app.get(EventFeed).stamp())),
    ).toEqual(['BEGIN', 'SELECT acm_event_feed_head', 'UPDATE acm_event', 'UPDATE acm_event_feed_head', 'COMMIT']);
    // Another order, through the same path.
    expect(await order('UNDEPLOY')).toEqual(ORDER_STATEMENTS);
    // PostgreSQL parses and plans the long ones once per connection: they go as named prepared statements.
    expect([...namedKinds].filter((kind) => kind !== 'DELETE acm_outbox').sort()).toEqual([
      'SELECT automation_composition_element',
      'SELECT readContext',
      'WITH saveAll',
    ]);
  });
});
