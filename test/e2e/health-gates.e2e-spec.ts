import { randomUUID } from 'node:crypto';
import { commissionedAndPrimed, simulatorStack } from '../support/e2e-stack';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const DB = 'acm.example.refs.Database';
const WEB = 'acm.example.refs.Web';

interface Element {
  definition: { name: string };
  deployState: string;
  outProperties: Record<string, unknown>;
  message?: string;
}

interface Instance {
  deployState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, Element>;
}

interface HistoryEvent {
  sequence: number;
  event: string;
  detail: Record<string, unknown>;
}

/**
 * The references example (Web is deployed after Database) with a health gate on Database: `ready == true` held for
 * `bake` seconds, within `deadline` seconds. The composition gets a name of its own so one database holds both.
 */
function gatedTemplate(name: string, bake: number, deadline: number): string {
  const gate =
    `    ${DB}:\n      version: 1.0.0\n      metadata:\n        health_condition: "ready == true"\n` +
    `        health_bake: ${bake}\n        health_deadline: ${deadline}\n`;
  return readRepoFile('tosca/examples/sim-references.yaml')
    .replace('name: acm.example.SimReferences\n', `name: ${name}\n`)
    .replace(`    ${DB}:\n      version: 1.0.0\n`, gate);
}

/**
 * Health gates over Kafka with the runtime and the simulator as processes: the simulator's control API (`PUT /datas`,
 * ONAP's: it sets an element's outProperties and sends a STATUS) makes Database ready; Web goes only after the gate
 * held for its bake time; a gate that never holds fails the element at its deadline.
 */
describe('health gates over Kafka (runtime + simulator processes)', () => {
  const stack = simulatorStack('gates');
  const { api, sim } = stack;

  const instanceOf = async (compositionId: string, instanceId: string): Promise<Instance> =>
    (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200)).body as Instance;

  const historyOf = async (compositionId: string, instanceId: string): Promise<HistoryEvent[]> =>
    (
      (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)).body as {
        events: HistoryEvent[];
      }
    ).events;

  /** The events that sent an element to its participant. */
  const sentTo = (events: readonly HistoryEvent[], elementId: string): HistoryEvent[] =>
    events.filter(
      (event) =>
        (event.event === 'ELEMENTS_DISPATCHED' || event.event === 'PHASE_STARTED') &&
        (event.detail['elementIds'] as string[]).includes(elementId),
    );

  const settled = (compositionId: string, instanceId: string, what: (instance: Instance) => boolean) =>
    eventually('the instance to reach the awaited state', async () => {
      const current = await instanceOf(compositionId, instanceId);
      return what(current) ? current : undefined;
    });

  async function deployedInstance(name: string, bake: number, deadline: number) {
    const compositionId = await commissionedAndPrimed(api, gatedTemplate(name, bake, deadline));
    // Element ids of their own: one database holds both instances.
    const prefix = randomUUID().slice(0, -1);
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-references.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(/5e1f0000-0000-4000-8000-00000002000(\d)/g, (_id, digit: string) => `${prefix}${digit}`)
        .replace('"SimReferencesInstance"', JSON.stringify(`${name}-instance`)),
    ) as { elements: Record<string, { id: string; definition: { name: string } }> };
    const idOf = (element: string): string =>
      Object.values(body.elements).find((entry) => entry.definition.name === element)!.id;
    const created = await api().post(`${API}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    return { compositionId, instanceId, db: idOf(DB), web: idOf(WEB) };
  }

  it('refuses at commission a condition that does not parse, naming the field and the position', async () => {
    const broken = gatedTemplate('acm.example.GatesBroken', 1, 30).replace('"ready == true"', '"ready =="');
    const refused = await api()
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(broken)
      .expect(400);
    expect(JSON.stringify(refused.body)).toMatch(
      new RegExp(
        `node_templates\\.${DB.replace(/\./g, '\\.')}\\.metadata\\.health_condition: does not parse at position 8`,
      ),
    );
  });

  it('holds Web until Database reported ready for the bake time, then deploys it', async () => {
    // Every deploy at the simulator reports these outProperties: a url, and no `ready` yet.
    await sim()
      .put(`${SIM_API}/parameters`)
      .send({ deployProps: { url: 'postgres://db.example:5432/app' } })
      .expect(200);
    const { compositionId, instanceId, db, web } = await deployedInstance('acm.example.GatesReady', 1, 60);

    // Database answered DEPLOYED: it is deployed, not yet healthy, and Web waits for it.
    await eventually('the gate to start', async () =>
      (await historyOf(compositionId, instanceId)).some((event) => event.event === 'GATE_STARTED') ? true : undefined,
    );
    const held = await instanceOf(compositionId, instanceId);
    expect(held.elements[db]?.deployState).toBe('DEPLOYING');
    expect(sentTo(await historyOf(compositionId, instanceId), web)).toEqual([]);
    expect(held.stateChangeResult).toBe('NO_ERROR');
    // The graph shows the gate and why it waits.
    const graph = await api()
      .get(`${API}/compositions/${compositionId}/instances/${instanceId}/graph?format=json`)
      .expect(200);
    expect((graph.body as { nodes: Array<Record<string, unknown>> }).nodes).toContainEqual(
      expect.objectContaining({
        id: db,
        gate: 'ready == true',
        gateState: `waiting for ${DB}: condition ready == true (observed ready=null)`,
      }),
    );

    await sim()
      .put(`${SIM_API}/datas`)
      .send({
        automationCompositionId: instanceId,
        automationCompositionElementId: db,
        outProperties: { url: 'postgres://db.example:5432/app', ready: true },
      })
      .expect(200);
    const deployed = await settled(
      compositionId,
      instanceId,
      (current) => current.deployState === 'DEPLOYED' && current.phase === undefined,
    );
    expect(deployed.stateChangeResult).toBe('NO_ERROR');

    const events = await historyOf(compositionId, instanceId);
    const first = (predicate: (event: HistoryEvent) => boolean): number => {
      const found = events.find(predicate);
      expect(found).toBeDefined();
      return found!.sequence;
    };
    const started = first((event) => event.event === 'GATE_STARTED' && event.detail['elementId'] === db);
    const holding = first((event) => event.event === 'GATE_OBSERVED' && event.detail['holds'] === true);
    const passed = first((event) => event.event === 'GATE_PASSED' && event.detail['elementId'] === db);
    const webSent = sentTo(events, web)[0]?.sequence ?? Number.NaN;
    expect(started).toBeLessThan(holding);
    expect(holding).toBeLessThan(passed);
    expect(passed).toBeLessThan(webSent);
    // The gate waited at least its bake time once the condition held.
    const pass = events.find((event) => event.sequence === passed)!;
    expect(pass.detail['waitedMs']).toBeGreaterThanOrEqual(1000);
    const waitedFor = events.find((event) => event.event === 'GATE_STARTED')!;
    expect(waitedFor.detail).toMatchObject({ condition: 'ready == true', bakeMs: 1000, deadlineMs: 60000 });
  });

  it('fails Database when its gate misses the deadline, and Web is never sent', async () => {
    await sim()
      .put(`${SIM_API}/parameters`)
      .send({ deployProps: { url: 'postgres://db.example:5432/app', ready: false } })
      .expect(200);
    const { compositionId, instanceId, db, web } = await deployedInstance('acm.example.GatesDeadline', 1, 2);
    const failed = await settled(compositionId, instanceId, (current) => current.stateChangeResult === 'FAILED');
    expect(failed.elements[db]?.message).toMatch(
      /health gate missed its deadline \(2000 ms\): waiting for acm\.example\.refs\.Database: condition ready == true \(observed ready=false\)/,
    );
    const events = await historyOf(compositionId, instanceId);
    expect(sentTo(events, web)).toEqual([]);
    const sequenceOf = (kind: string): number | undefined => events.find((event) => event.event === kind)?.sequence;
    expect(sequenceOf('GATE_FAILED')).toBeDefined();
    expect(sequenceOf('GATE_FAILED')).toBeLessThan(sequenceOf('FAILED')!);
  });
});
