import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

/** Files of the update / rollback / migrate / prepare scenarios, read through the suite's `read`. */
export interface MigrationFixtures {
  readonly label: string;
  readonly read: (path: string) => string;
  /** Source and target definitions; their elements are served by the two simulators below. */
  readonly from: string;
  readonly to: string;
  /** Create body on `from`. */
  readonly create: string;
  /** Update body (ONAP format with an instance-id placeholder); null derives one from the create body. */
  readonly update: string | null;
  /** Migrate body from `from` to `to`. */
  readonly migrate: string;
  /** Precheck body; null adds `precheck: true` to the migrate body. */
  readonly precheck: string | null;
  /**
   * Failed migration then rollback: `before` runs the migrate body with the simulator failing, before the
   * real migration; `after` runs this body (ONAP's "migration-fail": back from `to` to `from`) afterwards.
   */
  readonly failedMigration: { readonly when: 'before' } | { readonly when: 'after'; readonly body: string };
}

const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6ca0';
const MULTI_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6ca1';
const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';

interface Element {
  id: string;
  definition: { name: string; version: string };
  deployState: string;
  migrationState: string;
  properties: Record<string, unknown>;
  outProperties: Record<string, unknown>;
}

interface Instance {
  compositionId: string;
  compositionTargetId?: string;
  deployState: string;
  lockState: string;
  subState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, Element>;
}

interface HistoryEvent {
  event: string;
  operationId: string;
  detail: Record<string, unknown>;
}

function fill(body: string, values: { composition: string; instance?: string; target?: string }): string {
  return body
    .replace(/COMPOSITIONIDPLACEHOLDER/g, values.composition)
    .replace(/INSTACEIDPLACEHOLDER|INSTANCEIDPLACEHOLDER/g, values.instance ?? '')
    .replace(/COMPOSITIONTARGETIDPLACEHOLDER/g, values.target ?? '')
    .replace(/TEXTPLACEHOLDER/g, 'text');
}

function contentType(path: string): 'application/json' | 'application/yaml' {
  return path.endsWith('.json') ? 'application/json' : 'application/yaml';
}

/**
 * Update, failed update + rollback, prepare and review with stages, precheck, migration across two
 * participants and a failed migration + rollback: the runtime and two simulators as processes over the
 * real Kafka and PostgreSQL, driven through REST only.
 */
export function describeMigrationOverKafka(fixtures: MigrationFixtures): void {
  const read = fixtures.read;
  describe(`update, rollback, migration and prepare over Kafka (${fixtures.label})`, () => {
    const suffix = randomUUID().slice(0, 8);
    const schema = `e2e_mig_${suffix}`;
    const topics = { op: `acm-e2e-mig-op-${suffix}`, sync: `acm-e2e-mig-sync-${suffix}` };
    let runtimeUrl = '';
    let simUrl = '';
    let multiUrl = '';
    let processes: ProductProcess[] = [];

    const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
    const sim = (url: string): request.Agent => request.agent(url).auth('participantUser', 'zb!XztG34');

    function simulator(name: string, port: number, participantId: string, types: string): ProductProcess {
      return simulatorProcess(`${name}-${suffix}`, { port, participantId, types, topics });
    }

    beforeAll(async () => {
      const [runtimePort, simPort, multiPort] = await Promise.all([freePort(), freePort(), freePort()]);
      runtimeUrl = `http://127.0.0.1:${runtimePort}`;
      simUrl = `http://127.0.0.1:${simPort}`;
      multiUrl = `http://127.0.0.1:${multiPort}`;
      const runtime = runtimeProcess(`runtime-mig-${suffix}`, {
        port: runtimePort,
        schema,
        groupId: `acm-runtime-mig-${suffix}`,
        topics,
      });
      runtime.start();
      processes = [runtime];
      await runtimeAnswering(api);
      const sims = [
        simulator(
          'sim-mig',
          simPort,
          SIM_PARTICIPANT,
          'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
        ),
        simulator(
          'sim-mig-multi',
          multiPort,
          MULTI_PARTICIPANT,
          'org.onap.policy.clamp.acm.SimAutomationCompositionElement2:1.0.0,org.onap.policy.clamp.acm.SimAutomationCompositionElement3:1.0.0',
        ),
      ];
      for (const process of sims) {
        process.start();
        processes.push(process);
      }
      for (const id of [SIM_PARTICIPANT, MULTI_PARTICIPANT]) {
        await participantKnown(api, id);
      }
    }, 120_000);

    afterAll(async () => {
      for (const process of processes.slice(1)) {
        await process.stop();
      }
      await processes[0]?.stop();
      await dropSchema(schema);
    });

    async function commissionAndPrime(path: string): Promise<string> {
      return commissionedAndPrimed(api, read(path), { contentType: contentType(path) });
    }

    async function instance(compositionId: string, instanceId: string): Promise<Instance> {
      return (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
        .body as Instance;
    }

    async function settled(
      compositionId: string,
      instanceId: string,
      deployState: string,
      lockState: string,
    ): Promise<Instance> {
      return eventually(`${deployState}/${lockState}`, async () => {
        const current = await instance(compositionId, instanceId);
        return current.deployState === deployState &&
          current.lockState === lockState &&
          current.subState === 'NONE' &&
          current.phase === undefined
          ? current
          : undefined;
      });
    }

    async function failed(compositionId: string, instanceId: string): Promise<Instance> {
      return eventually('FAILED', async () => {
        const current = await instance(compositionId, instanceId);
        return current.stateChangeResult === 'FAILED' ? current : undefined;
      });
    }

    async function post(compositionId: string, body: string, path: string, extra: object = {}): Promise<void> {
      const parsed: unknown =
        contentType(path) === 'application/json' ? JSON.parse(body) : (await import('js-yaml')).load(body);
      await api()
        .post(`${API}/compositions/${compositionId}/instances`)
        .send({ ...(parsed as object), ...extra })
        .expect(200);
    }

    async function simParameters(values: Record<string, unknown>): Promise<void> {
      for (const url of [simUrl, multiUrl]) {
        await sim(url).put(`${SIM_API}/parameters`).send(values).expect(200);
      }
    }

    async function stagesOf(compositionId: string, instanceId: string, order: string): Promise<unknown[]> {
      const history = (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`))
        .body as { events: HistoryEvent[] };
      const operationId = history.events
        .filter((e) => e.event === 'ORDERED' && e.detail['order'] === order)
        .at(-1)?.operationId;
      return history.events
        .filter((e) => e.operationId === operationId && e.event === 'PHASE_STARTED')
        .map((e) => e.detail['phase']);
    }

    const shape = (current: Instance): unknown =>
      Object.fromEntries(
        Object.entries(current.elements).map(([id, element]) => [id, [element.definition, element.properties]]),
      );

    it('prepares and reviews in stages, updates, rolls back a failed update and a failed migration, prechecks and migrates', async () => {
      const fromId = await commissionAndPrime(fixtures.from);
      const toId = await commissionAndPrime(fixtures.to);
      const createBody = fill(read(fixtures.create), { composition: fromId });
      const created = await api()
        .post(`${API}/compositions/${fromId}/instances`)
        .set('Content-Type', contentType(fixtures.create))
        .send(createBody)
        .expect(201);
      const instanceId = (created.body as { instanceId: string }).instanceId;
      const ids = { composition: fromId, instance: instanceId, target: toId };

      // Prepare walks the prepare stages upwards; the simulator records each stage it ran.
      await api()
        .put(`${API}/compositions/${fromId}/instances/${instanceId}`)
        .send({ subOrder: 'PREPARE' })
        .expect(202);
      const prepared = await settled(fromId, instanceId, 'UNDEPLOYED', 'NONE');
      const prepareStages = (await stagesOf(fromId, instanceId, 'PREPARE')) as number[];
      expect(prepareStages.length).toBeGreaterThan(1);
      expect([...prepareStages].sort((a, b) => a - b)).toEqual(prepareStages);
      for (const element of Object.values(prepared.elements)) {
        expect(Array.isArray(element.outProperties['prepareStage'])).toBe(true);
      }

      await api()
        .put(`${API}/compositions/${fromId}/instances/${instanceId}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
      await settled(fromId, instanceId, 'DEPLOYED', 'LOCKED');
      await api().put(`${API}/compositions/${fromId}/instances/${instanceId}`).send({ subOrder: 'REVIEW' }).expect(202);
      await settled(fromId, instanceId, 'DEPLOYED', 'LOCKED');

      // Update: properties merged, DEPLOYED again.
      const original = await instance(fromId, instanceId);
      const updatePath = fixtures.update ?? fixtures.create;
      const updateBody =
        fixtures.update === null
          ? JSON.stringify({
              ...(JSON.parse(createBody) as object),
              instanceId,
              elements: Object.fromEntries(
                Object.entries(original.elements).map(([id, element]) => [
                  id,
                  { id, definition: element.definition, properties: { myParameterToUpdate: 'text updated' } },
                ]),
              ),
            })
          : fill(read(fixtures.update), ids);
      await post(fromId, updateBody, updatePath);
      const updated = await settled(fromId, instanceId, 'DEPLOYED', 'LOCKED');
      expect(JSON.stringify(updated.elements)).toContain('text updated');

      // A failed update, rolled back to the properties before it.
      try {
        await simParameters({ updateSuccess: false });
        await post(fromId, updateBody.replace(/text updated/g, 'text broken'), updatePath);
        expect((await failed(fromId, instanceId)).deployState).toBe('UPDATING');
      } finally {
        await simParameters({});
      }
      await api().post(`${API}/compositions/${fromId}/instances/${instanceId}/rollback`).expect(202);
      const rolledBack = await settled(fromId, instanceId, 'DEPLOYED', 'LOCKED');
      expect(shape(rolledBack)).toEqual(shape(updated));

      // Precheck: nothing but the sub-state moves.
      const migrateBody = fill(read(fixtures.migrate), ids);
      const precheckBody = fixtures.precheck === null ? migrateBody : fill(read(fixtures.precheck), ids);
      await post(fromId, precheckBody, fixtures.precheck ?? fixtures.migrate, { precheck: true });
      const prechecked = await settled(fromId, instanceId, 'DEPLOYED', 'LOCKED');
      expect(prechecked.compositionId).toBe(fromId);
      expect(shape(prechecked)).toEqual(shape(updated));

      if (fixtures.failedMigration.when === 'before') {
        try {
          await simParameters({ migrateSuccess: false });
          await post(fromId, migrateBody, fixtures.migrate);
          expect((await failed(fromId, instanceId)).deployState).toBe('MIGRATING');
        } finally {
          await simParameters({});
        }
        await api().post(`${API}/compositions/${fromId}/instances/${instanceId}/rollback`).expect(202);
        const back = await settled(fromId, instanceId, 'DEPLOYED', 'LOCKED');
        expect(back.compositionId).toBe(fromId);
        expect(shape(back)).toEqual(shape(updated));
      }

      // The migration: stages upwards, elements added and removed, the instance on the target afterwards.
      await post(fromId, migrateBody, fixtures.migrate);
      const migrated = await eventually('DEPLOYED on the target', async () => {
        const response = await api().get(`${API}/compositions/${toId}/instances/${instanceId}`);
        const current = response.body as Instance;
        return response.status === 200 && current.compositionId === toId && current.phase === undefined
          ? current
          : undefined;
      });
      expect(migrated).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
      const wanted = Object.keys(
        (
          (contentType(fixtures.migrate) === 'application/json'
            ? JSON.parse(migrateBody)
            : (await import('js-yaml')).load(migrateBody)) as { elements: Record<string, unknown> }
        ).elements,
      ).sort();
      expect(Object.keys(migrated.elements).sort()).toEqual(wanted);
      expect(Object.values(migrated.elements).every((element) => element.migrationState === 'DEFAULT')).toBe(true);
      const migrateStages = (await stagesOf(toId, instanceId, 'MIGRATE')) as number[];
      expect(migrateStages.length).toBeGreaterThan(1);
      expect([...migrateStages].sort((a, b) => a - b)).toEqual(migrateStages);

      if (fixtures.failedMigration.when === 'after') {
        const failBody = fill(read(fixtures.failedMigration.body), {
          composition: toId,
          instance: instanceId,
          target: fromId,
        });
        try {
          await simParameters({ migrateSuccess: false });
          await post(toId, failBody, fixtures.failedMigration.body);
          expect((await failed(toId, instanceId)).deployState).toBe('MIGRATING');
        } finally {
          await simParameters({});
        }
        await api().post(`${API}/compositions/${toId}/instances/${instanceId}/rollback`).expect(202);
        const back = await settled(toId, instanceId, 'DEPLOYED', 'LOCKED');
        expect(back.compositionId).toBe(toId);
        expect(back.compositionTargetId ?? null).toBeNull();
        expect(shape(back)).toEqual(shape(migrated));
        const revertStages = (await stagesOf(toId, instanceId, 'MIGRATION_REVERT')) as number[];
        expect([...revertStages].sort((a, b) => b - a)).toEqual(revertStages);
      }

      // What the simulators hold matches the runtime.
      const final = await instance(toId, instanceId);
      const held = new Map<string, string>();
      for (const url of [simUrl, multiUrl]) {
        const list = (await sim(url).get(`${SIM_API}/instances`).expect(200)).body as {
          automationCompositionList?: Array<{ instanceId: string; elements: Record<string, { deployState: string }> }>;
        };
        for (const entry of list.automationCompositionList ?? []) {
          if (entry.instanceId === instanceId) {
            for (const [id, element] of Object.entries(entry.elements)) {
              held.set(id, element.deployState);
            }
          }
        }
      }
      expect([...held.keys()].sort()).toEqual(Object.keys(final.elements).sort());
    });
  });
}
