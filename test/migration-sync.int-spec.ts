import { randomUUID } from 'node:crypto';
import type { ParticipantMessage, ParticipantSync } from '@acm/contracts';
import { MessageBus } from '@acm/messaging';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime } from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';

const TYPE = (suffix: string) => ({
  typeName: `org.onap.policy.clamp.acm.SimAutomationCompositionElement${suffix}`,
  typeVersion: '1.0.0',
});
// The source's Sink is served by a participant of its own, so that participant owns only elements the
// migration removes; the target's Extra is served by another, which owns only elements the migration adds.
const fromYaml = readRepoFile('tosca/examples/sim-migration-from.yaml').replace(
  /SimAutomationCompositionElement2/g,
  'SimAutomationCompositionElement3',
);
const toYaml = readRepoFile('tosca/examples/sim-migration-to.yaml');
const fromBody = readRepoFile('tosca/examples/instances/sim-migration-from.json');
const toBody = readRepoFile('tosca/examples/instances/sim-migration-to.json');

interface Instance {
  compositionId: string;
  deployState: string;
  lockState: string;
  subState: string;
  phase?: number;
  revisionId: string;
}

function syncs(participant: ScriptedParticipant, instanceId: string): ParticipantSync[] {
  return participant.received.filter(
    (message: ParticipantMessage): message is ParticipantSync =>
      message.messageType === 'PARTICIPANT_SYNC_MSG' && message.automationCompositionId === instanceId,
  );
}

describe('participant SYNCs around a migration (PostgreSQL, in-process bus, scripted participants)', () => {
  let runtime: RuntimeHarness;
  let kept: ScriptedParticipant;
  let added: ScriptedParticipant;
  let removed: ScriptedParticipant;
  let fromId: string;
  let toId: string;

  async function commissionAndPrime(yaml: string): Promise<string> {
    const created = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(201);
    const id = (created.body as { compositionId: string }).compositionId;
    await runtime.http.put(`${BASE}/compositions/${id}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('PRIMED', async () => {
      const got = await runtime.http.get(`${BASE}/compositions/${id}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    return id;
  }

  /** Element ids and the instance name are fresh per instance, the same in the create and the migrate body. */
  function fresh(): (text: string) => string {
    const ids = new Map([1, 2, 3, 4].map((n) => [`5e1f0000-0000-4000-8000-00000000700${n}`, randomUUID()]));
    const name = `SimMigration-${randomUUID().slice(0, 8)}`;
    return (text) =>
      [...ids].reduce((result, [from, to]) => result.split(from).join(to), text).replace(/SimMigrationInstance/g, name);
  }

  async function deployedInstance(): Promise<{ instanceId: string; migrate: object }> {
    const swap = fresh();
    const created = await runtime.http
      .post(`${BASE}/compositions/${fromId}/instances`)
      .send(JSON.parse(swap(fromBody).replace(/COMPOSITIONIDPLACEHOLDER/g, fromId)))
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await runtime.http
      .put(`${BASE}/compositions/${fromId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await eventually('DEPLOYED', async () => {
      const current = (await runtime.http.get(`${BASE}/compositions/${fromId}/instances/${instanceId}`))
        .body as Instance;
      return current.deployState === 'DEPLOYED' && current.phase === undefined ? true : undefined;
    });
    const migrate = JSON.parse(
      swap(toBody)
        .replace(/COMPOSITIONIDPLACEHOLDER/g, fromId)
        .replace(/INSTANCEIDPLACEHOLDER/g, instanceId)
        .replace(/COMPOSITIONTARGETIDPLACEHOLDER/g, toId),
    ) as object;
    return { instanceId, migrate };
  }

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000' });
    const bus = runtime.app.get(MessageBus);
    kept = new ScriptedParticipant(bus, randomUUID(), [TYPE('')]);
    added = new ScriptedParticipant(bus, randomUUID(), [TYPE('2')]);
    removed = new ScriptedParticipant(bus, randomUUID(), [TYPE('3')]);
    for (const participant of [kept, added, removed]) {
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
    for (const participant of [kept, added, removed]) {
      await participant.stop();
    }
    await runtime.close();
  });

  it('answers a REQ_SYNC naming an instance with that instance, even to a participant of another composition', async () => {
    const { instanceId } = await deployedInstance();
    const stored = (await runtime.http.get(`${BASE}/compositions/${fromId}/instances/${instanceId}`).expect(200))
      .body as Instance;
    await added.send({
      messageType: 'PARTICIPANT_REQ_SYNC_MSG',
      messageId: randomUUID(),
      timestamp: new Date().toISOString(),
      participantId: added.participantId,
      replicaId: added.replicaId,
      automationCompositionId: instanceId,
    });
    const [answer] = await eventually('the instance SYNC', () => {
      const list = syncs(added, instanceId);
      return list.length > 0 ? list : undefined;
    });
    expect(answer).toMatchObject({
      participantId: added.participantId,
      replicaId: added.replicaId,
      compositionId: fromId,
      revisionIdInstance: stored.revisionId,
      delete: false,
    });
    expect(answer?.automationcompositionList).toEqual([
      expect.objectContaining({ automationCompositionId: instanceId, revisionId: stored.revisionId }),
    ]);
    expect(answer?.automationcompositionList?.[0]?.acElementList).toHaveLength(3);

    const gone = randomUUID();
    await added.send({
      messageType: 'PARTICIPANT_REQ_SYNC_MSG',
      messageId: randomUUID(),
      timestamp: new Date().toISOString(),
      participantId: added.participantId,
      replicaId: added.replicaId,
      automationCompositionId: gone,
    });
    const [removal] = await eventually('the SYNC removing an unknown instance', () => {
      const list = syncs(added, gone);
      return list.length > 0 ? list : undefined;
    });
    expect(removal).toMatchObject({ delete: true, automationcompositionList: [] });
  });

  it('sends the SYNC of a finished migration to every participant of the source and of the target', async () => {
    const { instanceId, migrate } = await deployedInstance();
    await runtime.http.post(`${BASE}/compositions/${fromId}/instances`).send(migrate).expect(200);
    const done = await eventually('DEPLOYED on the target', async () => {
      const response = await runtime.http.get(`${BASE}/compositions/${toId}/instances/${instanceId}`);
      const current = response.body as Instance;
      return response.status === 200 && current.compositionId === toId && current.phase === undefined
        ? current
        : undefined;
    });
    const final = await eventually('the SYNC of the migration', () =>
      syncs(kept, instanceId).find((sync) => sync.revisionIdInstance === done.revisionId),
    );
    expect(new Set(final.participantIdList)).toEqual(
      new Set([kept.participantId, added.participantId, removed.participantId]),
    );
    expect(final.compositionId).toBe(toId);
  });
});
