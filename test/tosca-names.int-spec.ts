import { randomUUID } from 'node:crypto';
import type { ParticipantMessage, ParticipantSync } from '@acm/contracts';
import { MessageBus } from '@acm/messaging';
import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import type { Test } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createRuntimeApp } from '../apps/runtime-acm/src/bootstrap';
import { loadRuntimeConfig } from '../apps/runtime-acm/src/config/runtime.config';
import { BASE, PASSWORD, USER, readRepoFile } from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';
import { testDatabaseUrl } from './support/services';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const CUSTOM_ELEMENT = 'org.example.custom.Element';
const CUSTOM_COMPOSITION = 'org.example.custom.Composition';
const singleElement = readRepoFile('tosca/examples/sim-single-element.yaml');

/** The single-element example under another template name, optionally with the custom type names. */
function template(name: string, customTypes: boolean): string {
  const named = singleElement.replace(/^name: .*$/m, `name: ${name}`);
  return customTypes
    ? named
        .replace(/org\.onap\.policy\.clamp\.acm\.AutomationCompositionElement\b/g, CUSTOM_ELEMENT)
        .replace(/org\.onap\.policy\.clamp\.acm\.AutomationComposition\b/g, CUSTOM_COMPOSITION)
    : named;
}

interface Started {
  app: INestApplication;
  http: TestAgent<Test>;
  participant: ScriptedParticipant;
}

describe('TOSCA type names changed after definitions were primed (PostgreSQL, in-process bus)', () => {
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const participantId = randomUUID();
  let current: Started | undefined;

  /** The runtime on the suite's schema with the given settings, and a replica of the participant on its bus. */
  async function start(env: Record<string, string>): Promise<Started> {
    const config = loadRuntimeConfig({
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'error',
      SIMULATOR: 'false',
      HEART_BEAT: '3600000',
      ...env,
    });
    const { app } = await createRuntimeApp(config, { schema });
    await app.init();
    const http = request.agent(app.getHttpServer()).auth(USER, PASSWORD);
    const participant = new ScriptedParticipant(app.get(MessageBus), participantId, [SIM_TYPE]);
    await participant.start();
    current = { app, http, participant };
    return current;
  }

  async function stop(): Promise<void> {
    await current?.participant.stop();
    await current?.app.close();
    current = undefined;
  }

  async function onLine(started: Started): Promise<void> {
    await eventually('the replica ON_LINE', async () => {
      const response = await started.http.get(`${BASE}/participants/${participantId}`);
      const replicas = (response.body as { participant?: { replicas?: Record<string, { participantState: string }> } })
        .participant?.replicas;
      return replicas?.[started.participant.replicaId]?.participantState === 'ON_LINE' ? true : undefined;
    });
  }

  async function commissionAndPrime(started: Started, yaml: string): Promise<string> {
    const created = await started.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(201);
    const id = (created.body as { compositionId: string }).compositionId;
    await started.http.put(`${BASE}/compositions/${id}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('PRIMED', async () => {
      const got = await started.http.get(`${BASE}/compositions/${id}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    return id;
  }

  afterAll(async () => {
    await stop();
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('registers participants, syncs old definitions and commissions new ones with the new names', async () => {
    const before = await start({});
    await onLine(before);
    const oldId = await commissionAndPrime(before, template('acm.example.DefaultNames', false));
    const brokenId = await commissionAndPrime(before, template('acm.example.BrokenLater', false));
    await stop();
    // A stored template damaged outside the runtime: it is left out of SYNCs, never a reason to refuse a REGISTER.
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    await client.query(
      `UPDATE "${schema}".composition_definition SET service_template = '{"tosca_definitions_version": 1}' WHERE composition_id = $1`,
      [brokenId],
    );
    await client.end();

    const after = await start({ TOSCA_ELEMENT_NAME: CUSTOM_ELEMENT, TOSCA_COMPOSITION_NAME: CUSTOM_COMPOSITION });
    await onLine(after);
    const sync = await eventually('the restart SYNC of the old definition', () =>
      after.participant.received.find(
        (message: ParticipantMessage): message is ParticipantSync =>
          message.messageType === 'PARTICIPANT_SYNC_MSG' && message.compositionId === oldId,
      ),
    );
    expect(sync).toMatchObject({ restarting: true, state: 'PRIMED', replicaId: after.participant.replicaId });
    expect(
      sync.participantDefinitionUpdates?.[0]?.automationCompositionElementDefinitionList.map(
        (element) => element.acElementDefinitionId.name,
      ),
    ).toEqual(['acm.example.single.SimElement']);
    expect(after.participant.received.some((message) => message.messageType === 'PARTICIPANT_REGISTER_ACK')).toBe(true);
    expect(
      after.participant.received.some(
        (message) => message.messageType === 'PARTICIPANT_SYNC_MSG' && message.compositionId === brokenId,
      ),
    ).toBe(false);

    // New definitions are judged by the names configured now.
    const refused = await after.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(template('acm.example.StillDefaultNames', false))
      .expect(400);
    expect((refused.body as { errorDetails: string }).errorDetails).toContain(
      `NodeTemplate with type ${CUSTOM_COMPOSITION} must exist!`,
    );
    await commissionAndPrime(after, template('acm.example.CustomNames', true));
  });
});
