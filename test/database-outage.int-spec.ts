import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime } from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';
import { testDatabaseUrl } from './support/services';
import { TcpProxy } from './support/tcp-proxy';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };

describe('a PostgreSQL outage while ACKs arrive (runtime on a proxied database)', () => {
  let proxy: TcpProxy;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;

  beforeAll(async () => {
    const target = new URL(testDatabaseUrl());
    proxy = new TcpProxy(target.hostname, Number(target.port || '5432'));
    const proxied = new URL(target.href);
    proxied.port = String(await proxy.start());
    // An hour-long supervision period: neither a retry nor a timeout of the runtime can finish the deploy.
    runtime = await startRuntime({ HEART_BEAT: '3600000', DATABASE_URL: proxied.href });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await eventually('the participant to register', async () => {
      const response = await runtime.http.get(`${BASE}/participants/${participant.participantId}`);
      return response.status === 200 ? true : undefined;
    });
    const created = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-three-phase.yaml'))
      .expect(201);
    compositionId = (created.body as { compositionId: string }).compositionId;
    await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('PRIMED', async () => {
      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
  });

  afterAll(async () => {
    proxy.restore();
    await participant.stop();
    await runtime.close();
    await proxy.close();
  });

  it('applies an ACK received while the database was unreachable once it is back', async () => {
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { name: string };
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({ ...body, name: `${body.name}-${randomUUID().slice(0, 8)}` })
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    participant.autoAnswer = false;
    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);

    proxy.cutOff();
    await participant.ack(phase0, participant.myElements(phase0));
    // Several refused connections: the runtime met the outage with the ACK in hand, more than once.
    await eventually('the runtime to retry against the unreachable database', () =>
      proxy.refused >= 5 ? true : undefined,
    );
    participant.autoAnswer = true;
    proxy.restore();

    const deployed = await eventually(
      'DEPLOYED',
      async () => {
        const response = await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`);
        const current = response.body as { deployState?: string; phase?: number };
        return response.status === 200 && current.deployState === 'DEPLOYED' && current.phase === undefined
          ? current
          : undefined;
      },
      1_500,
    );
    expect(deployed).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
  });
});
