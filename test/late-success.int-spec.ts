import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import type { ElementContext } from '@acm/participant-sdk';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, commissionAndPrime, participantRegistered, readRepoFile, startRuntime } from './support/runtime-harness';
import { eventually } from './support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const FIXTURE_ELEMENT = '5e1f0000-0000-4000-8000-000000001001';

interface Instance {
  deployState: string;
  stateChangeResult: string;
  elements: Record<string, { deployState: string }>;
}

/**
 * TIMEOUT as ONAP means it, with the project's own SDK: the phase's deadline passes while the handler still works,
 * the instance shows DEPLOYING/TIMEOUT and the handler is asked to stop; it finishes anyway, and its late success
 * completes the instance. The scan runs once an hour: the deadline is fired by the supervision timer.
 */
describe('a handler that finishes after its phase deadline (PostgreSQL, in-process bus, SDK participant)', () => {
  let runtime: RuntimeHarness;
  let participant: Participant;
  const working: ElementContext[] = [];

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000', MAX_WAIT_MS: '0' });
    participant = new Participant({
      participantId: randomUUID(),
      supportedElementTypes: [SIM_TYPE],
      bus: runtime.app.get(MessageBus),
      handler: {
        deploy: (ctx) => {
          working.push(ctx);
          return 'pending';
        },
        undeploy: () => ({ ok: true }),
      },
    });
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  it('shows TIMEOUT, asks the handler to stop, and completes with the late success', async () => {
    const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    const elementId = randomUUID();
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-single-element.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(new RegExp(FIXTURE_ELEMENT, 'g'), elementId),
    ) as { elements: Record<string, { properties: object }> };
    body.elements[elementId]!.properties = { ...body.elements[elementId]!.properties, deployTimeoutMs: 1000 };
    const created = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
    const path = `${BASE}/compositions/${compositionId}/instances/${(created.body as { instanceId: string }).instanceId}`;
    const instance = async (): Promise<Instance> => (await runtime.http.get(path).expect(200)).body as Instance;
    await runtime.http.put(path).send({ deployOrder: 'DEPLOY' }).expect(202);

    const ctx = await eventually('the handler called', () => working[0]);
    await eventually('TIMEOUT', async () => ((await instance()).stateChangeResult === 'TIMEOUT' ? true : undefined));
    expect(await instance()).toMatchObject({
      deployState: 'DEPLOYING',
      elements: { [elementId]: { deployState: 'DEPLOYING' } },
    });
    await eventually('the handler asked to stop', () => (ctx.signal.aborted ? true : undefined));

    await ctx.report.done({ message: 'finished late' });
    const done = await eventually('DEPLOYED', async () => {
      const current = await instance();
      return current.deployState === 'DEPLOYED' ? current : undefined;
    });
    expect(done).toMatchObject({
      stateChangeResult: 'NO_ERROR',
      elements: { [elementId]: { deployState: 'DEPLOYED' } },
    });
  });
});
