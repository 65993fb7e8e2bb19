import { MessageBus } from '@acm/messaging';
import type { Participant } from '@acm/participant-sdk';
import {
  FakeResourceService,
  PROVIDER_PARTICIPANT_ID,
  createResourceProviderParticipant,
} from '@acm/participant-sdk/testing';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, startRuntime } from './support/runtime-harness';
import { eventually } from './support/scripted-participant';

const ELEMENT_ID = '5e1f0000-0000-4000-8000-00000000a001';

interface Instance {
  deployState: string;
  stateChangeResult: string;
  elements: Record<string, { deployState: string; message?: string }>;
}

/**
 * The SDK's worked resource provider on the runtime's own bus (real PostgreSQL): a refusal's diagnostic
 * travels in the element's ACK and shows in GET and in the history.
 */
describe('resource provider diagnostics at the runtime', () => {
  let runtime: RuntimeHarness;
  let participant: Participant;
  const service = new FakeResourceService();

  beforeAll(async () => {
    runtime = await startRuntime();
    participant = createResourceProviderParticipant({
      bus: runtime.app.get(MessageBus),
      service,
      logger: () => undefined,
    });
    await participant.start();
    await eventually('the provider participant to register', async () =>
      (await runtime.http.get(`${BASE}/participants/${PROVIDER_PARTICIPANT_ID}`)).status === 200 ? true : undefined,
    );
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  it('shows why a deploy was refused, and both ways out, in GET and in the history', async () => {
    service.seed('orders-db', { state: 'running', instanceUid: 'uid-orders', statusRaw: 'ACTIVE' });
    const commissioned = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/provider-resource.yaml'))
      .expect(201);
    const compositionId = (commissioned.body as { compositionId: string }).compositionId;
    await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('the definition to be PRIMED', async () => {
      const response = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
      return (response.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(
        readRepoFile('tosca/examples/instances/provider-resource.json').replace(
          /COMPOSITIONIDPLACEHOLDER/g,
          compositionId,
        ),
      )
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const path = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;

    await runtime.http.put(path).send({ deployOrder: 'DEPLOY' }).expect(202);
    const failed = await eventually('the deploy to fail', async () => {
      const instance = (await runtime.http.get(path).expect(200)).body as Instance;
      return instance.stateChangeResult === 'FAILED' ? instance : undefined;
    });

    const diagnostic = failed.elements[ELEMENT_ID]?.message ?? '';
    expect(diagnostic.split('\n')).toEqual([
      `Deploy of element ${ELEMENT_ID} refused: a running resource named orders-db already exists and adoptExistingOnCreate is false`,
      '  decision: refuse (running-adoption-not-allowed)',
      '  adoptExistingOnCreate: false',
      '  resource_name: orders-db',
      '  instance_uid: uid-orders',
      '  status: running',
      '  status_raw: ACTIVE',
      '  operation_pending: none',
      '  operation_in_progress: none',
      'Ways out:',
      '  - change the element property resourceName to a name that is not in use, and deploy again',
      '  - or set adoptExistingOnCreate: true on the element to take the existing resource over, and deploy again',
    ]);
    const history = (await runtime.http.get(`${path}/history`).expect(200)).body as {
      events: Array<{ event: string; detail: { elementId?: string; message?: string } }>;
    };
    const result = history.events.find((event) => event.event === 'ELEMENT_RESULT');
    expect(result?.detail).toMatchObject({ elementId: ELEMENT_ID, message: diagnostic });
    expect(service.calls).toEqual(['getState(orders-db)']);
  });
});
