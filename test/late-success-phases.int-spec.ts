import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import type { ElementContext } from '@acm/participant-sdk';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  commissionAndPrime,
  historyOf,
  participantRegistered,
  readRepoFile,
  startRuntime,
} from './support/runtime-harness';
import { eventually } from './support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
/** The element of phase 0 whose handler finishes after the deadline (tosca/examples/instances/sim-three-phase.json). */
const LATE_ELEMENT = 'acm.example.phases.Phase0A';

interface Instance {
  deployState: string;
  stateChangeResult: string;
  elements: Record<string, { deployState: string }>;
}

interface HistoryEvent {
  event: string;
  detail?: { phase?: number };
}

/**
 * TIMEOUT in the first of three phases, with the project's own SDK: one handler of phase 0 still works when the
 * phase's deadline passes, the instance shows DEPLOYING/TIMEOUT, the handler finishes anyway, and its late success
 * closes phase 0: phases 1 and 2 run and the instance ends DEPLOYED. The scan runs once an hour: the deadline is fired
 * by the supervision timer, and each next phase leaves with the ACK that closes the one before.
 */
describe('a late success in phase 0 of three (PostgreSQL, in-process bus, SDK participant)', () => {
  let runtime: RuntimeHarness;
  let participant: Participant;
  const late: ElementContext[] = [];
  const deployedInPhase: number[] = [];

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000', MAX_WAIT_MS: '0' });
    participant = new Participant({
      participantId: randomUUID(),
      supportedElementTypes: [SIM_TYPE],
      bus: runtime.app.get(MessageBus),
      handler: {
        deploy: (ctx) => {
          if (ctx.compositionElement.definition.name === LATE_ELEMENT) {
            late.push(ctx);
            return 'pending';
          }
          deployedInPhase.push(ctx.phase);
          return { ok: true };
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

  it('shows TIMEOUT in phase 0, then runs phases 1 and 2 after the late success and ends DEPLOYED', async () => {
    const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-three-phase.yaml'));
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { name: string; elements: Record<string, { id: string; properties?: object }> };
    const elements = Object.fromEntries(
      Object.values(body.elements).map((element) => {
        const id = randomUUID();
        return [id, { ...element, id, properties: { ...element.properties, deployTimeoutMs: 1500 } }];
      }),
    );
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({ ...body, name: `${body.name}-${randomUUID().slice(0, 8)}`, elements })
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const path = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;
    const instance = async (): Promise<Instance> => (await runtime.http.get(path).expect(200)).body as Instance;
    await runtime.http.put(path).send({ deployOrder: 'DEPLOY' }).expect(202);

    const ctx = await eventually('the late handler called', () => late[0]);
    expect(ctx.phase).toBe(0);
    await eventually('TIMEOUT', async () => ((await instance()).stateChangeResult === 'TIMEOUT' ? true : undefined));
    expect((await instance()).deployState).toBe('DEPLOYING');
    expect(deployedInPhase).toEqual([0]);

    await ctx.report.done({ message: 'finished late' });
    const done = await eventually('DEPLOYED', async () => {
      const current = await instance();
      return current.deployState === 'DEPLOYED' ? current : undefined;
    });
    expect(done.stateChangeResult).toBe('NO_ERROR');
    expect(Object.values(done.elements).map((element) => element.deployState)).toEqual(
      Object.keys(elements).map(() => 'DEPLOYED'),
    );
    expect(deployedInPhase).toEqual([0, 1, 1, 2, 2]);

    const history = await historyOf<HistoryEvent>(runtime, compositionId, instanceId);
    const names = history.map((event) => event.event);
    const startedPhases = history
      .filter((event) => event.event === 'PHASE_STARTED')
      .map((event) => event.detail?.phase);
    expect(startedPhases).toEqual([0, 1, 2]);
    const phase1Started = history.findIndex((event) => event.event === 'PHASE_STARTED' && event.detail?.phase === 1);
    expect(names.indexOf('TIMEOUT')).toBeGreaterThan(-1);
    expect(names.indexOf('TIMEOUT')).toBeLessThan(phase1Started);
    expect(names.at(-1)).toBe('COMPLETED');
  });
});
