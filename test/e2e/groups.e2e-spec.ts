import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { commissionedAndPrimed, simulatorStack } from '../support/e2e-stack';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const WORKER = 'acm.example.group.Worker';

interface Element {
  id: string;
  deployState: string;
  description?: string;
  definition: { name: string; version: string };
  properties: Record<string, unknown>;
}

interface Instance {
  name: string;
  version: string;
  deployState: string;
  phase?: number;
  elements: Record<string, Element>;
}

interface HistoryEvent {
  event: string;
  operationId: string | null;
  actor: { kind: string; user?: string | null };
  detail: Record<string, unknown>;
}

/** The Worker members of an instance by index (from the ` #<index>` their description ends with). */
function workersOf(instance: Instance): Map<number, Element> {
  return new Map(
    Object.values(instance.elements)
      .filter((element) => element.definition.name === WORKER)
      .map((element) => [Number(/ #(\d+)$/.exec(element.description ?? '')?.[1]), element]),
  );
}

/**
 * tosca/examples/sim-group.yaml over Kafka and PostgreSQL with the simulator participant as a process: a group of 2
 * deployed, scaled to 4 by a call of its signed scaling URL made with curl, then back to 1 by an UPDATE, whose
 * members leave from the highest index down.
 */
describe('groups over Kafka (runtime + simulator processes)', () => {
  const stack = simulatorStack('groups');
  const { api } = stack;

  async function settled(compositionId: string, instanceId: string, workers: number): Promise<Instance> {
    return eventually(`the instance DEPLOYED with ${workers} workers`, async () => {
      const current = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as Instance;
      return current.deployState === 'DEPLOYED' && current.phase === undefined && workersOf(current).size === workers
        ? current
        : undefined;
    });
  }

  it('deploys 2 members, scales to 4 through the webhook with curl, and back to 1 by an UPDATE', async () => {
    const yaml = readRepoFile('tosca/examples/sim-group.yaml')
      .replace('name: acm.example.SimGroup\n', `name: acm.example.SimGroup${stack.suffix}\n`)
      .replace('scaling_adjustment: 1\n', 'scaling_adjustment: 2\n');
    const compositionId = await commissionedAndPrimed(api, yaml);
    const parsed = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-group.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { name: string; elements: Record<string, Element & { count?: number }> };
    const ids: Record<string, string> = {};
    const elements = Object.fromEntries(
      Object.values(parsed.elements).map((element) => {
        const id = randomUUID();
        ids[element.definition.name.split('.').at(-1)!] = id;
        return [id, { ...element, id, ...(element.definition.name === WORKER ? { count: 2 } : {}) }];
      }),
    );
    const created = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .send({ ...parsed, name: `${parsed.name}-${stack.suffix}`, elements })
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const deployed = await settled(compositionId, instanceId, 2);
    expect(workersOf(deployed).get(1)?.properties['baseUrl']).toBe('http://sim.example:30800/worker-1-of-2');

    const growth = (
      await api()
        .post(`${API}/compositions/${compositionId}/instances/${instanceId}/plan`)
        .send({
          order: 'UPDATE',
          instance: {
            instanceId,
            compositionId,
            name: deployed.name,
            version: deployed.version,
            elements: { [ids['Worker']!]: { ...deployed.elements[ids['Worker']!], count: 4 } },
          },
        })
        .expect(200)
    ).body as { summary: Record<string, number> };
    expect(growth.summary).toMatchObject({ create: 2, delete: 0, replace: 0 });

    const { url } = (
      await api()
        .get(`${API}/compositions/${compositionId}/instances/${instanceId}/groups/${WORKER}/scale-url`)
        .expect(200)
    ).body as { url: string };
    const { stdout } = await promisify(execFile)('curl', ['-sS', '-X', 'POST', '-w', '\n%{http_code}', url]);
    const [answer, status] = stdout.split('\n');
    expect([status, JSON.parse(answer!)]).toEqual(['202', { group: WORKER, effect: 'SCALED', from: 2, to: 4 }]);
    const scaled = await settled(compositionId, instanceId, 4);
    expect([2, 3].map((index) => workersOf(scaled).get(index)?.deployState)).toEqual(['DEPLOYED', 'DEPLOYED']);
    expect(workersOf(scaled).get(3)?.properties['baseUrl']).toBe('http://sim.example:30800/worker-3-of-4');

    const again = await promisify(execFile)('curl', ['-sS', '-X', 'POST', '-w', '\n%{http_code}', url]);
    expect(again.stdout.split('\n').at(-1)).toBe('409');
    expect(again.stdout).toContain('a scaling call is refused during the cooldown');

    const memberIds = [1, 2, 3].map((index) => workersOf(scaled).get(index)!.id);
    const update = {
      instanceId,
      compositionId,
      name: scaled.name,
      version: scaled.version,
      elements: { [ids['Worker']!]: { ...scaled.elements[ids['Worker']!], count: 1 } },
    };
    const plan = (
      await api()
        .post(`${API}/compositions/${compositionId}/instances/${instanceId}/plan`)
        .send({ order: 'UPDATE', instance: update })
        .expect(200)
    ).body as { changes: Array<{ elementId: string; action: string }> };
    expect(
      plan.changes
        .filter((change) => change.action === 'delete')
        .map((change) => change.elementId)
        .sort(),
    ).toEqual([...memberIds].sort());
    await api().post(`${API}/compositions/${compositionId}/instances`).send(update).expect(200);
    const after = await settled(compositionId, instanceId, 1);
    expect(Object.keys(after.elements).sort()).toEqual([ids['Queue'], ids['Worker'], ids['Dispatcher']].sort());

    const history = (
      (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)).body as {
        events: HistoryEvent[];
      }
    ).events;
    const updates = history.filter((entry) => entry.event === 'ORDERED' && entry.detail['order'] === 'UPDATE');
    expect(updates.map((entry) => entry.actor.user?.replace(/ from .*/, ''))).toEqual([
      `scale-url ${WORKER}`,
      'runtimeUser',
    ]);
    const results = history
      .filter((entry) => entry.operationId === updates[1]!.operationId && entry.event === 'ELEMENT_RESULT')
      .map((entry) => [memberIds.indexOf(entry.detail['elementId'] as string) + 1, entry.detail['deployState']]);
    expect(results).toEqual([
      [3, 'UNDEPLOYED'],
      [2, 'UNDEPLOYED'],
      [1, 'UNDEPLOYED'],
      [3, 'DELETED'],
      [2, 'DELETED'],
      [1, 'DELETED'],
    ]);
  }, 180_000);
});
