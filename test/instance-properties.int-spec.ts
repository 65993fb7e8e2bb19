import { randomUUID } from 'node:crypto';
import { UnitOfWork } from '@acm/domain';
import { Logger } from '@nestjs/common';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, readRepoFile, registerParticipant, startRuntime } from './support/runtime-harness';

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const TEMPLATE = readRepoFile('tosca/examples/sim-typed-properties.yaml');
const INSTANCE = readRepoFile('tosca/examples/instances/sim-typed-properties.json');
const ELEMENT_NAME = 'acm.example.typed.SimElement';

interface ErrorBody {
  errorDetails: string;
}

interface InstanceView {
  instanceId: string;
  deployState: string;
  elements: Record<string, { properties: Record<string, unknown> }>;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
}

/** An instance body of the typed example with fresh ids, its element's properties replaced by `properties`. */
function instanceBody(compositionId: string, properties?: Record<string, unknown>): Record<string, any> {
  const body = JSON.parse(INSTANCE.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as Record<string, any>;
  const [element] = Object.values(body['elements'] as Record<string, Record<string, unknown>>);
  const id = randomUUID();
  return {
    ...body,
    name: `typed-${randomUUID().slice(0, 8)}`,
    elements: { [id]: { ...element, id, properties: properties ?? element?.['properties'] } },
  };
}

/** Runtime in one PROPERTY_VALIDATION mode with a primed copy of the typed example. */
class TypedRuntime {
  constructor(readonly runtime: RuntimeHarness) {}

  static async start(mode: string): Promise<TypedRuntime> {
    const runtime = await startRuntime({ PROPERTY_VALIDATION: mode });
    await registerParticipant(runtime.app, randomUUID(), [{ typeName: SIM_TYPE, typeVersion: '1.0.0' }]);
    return new TypedRuntime(runtime);
  }

  async primedComposition(): Promise<string> {
    const name = `acm.test.typed.${randomUUID().slice(0, 8)}`;
    const response = await this.runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(TEMPLATE.replace('name: acm.example.SimTypedProperties', `name: ${name}`))
      .expect(201);
    const compositionId = (response.body as { compositionId: string }).compositionId;
    // Stands in for the participants' PRIME_ACKs, which arrive over Kafka once the engine runs.
    await this.runtime.app.get(UnitOfWork).transaction(async (store) => {
      const found = await store.definitions.find(compositionId);
      if (!found) {
        throw new Error(`no definition ${compositionId}`);
      }
      await store.definitions.update({ ...found.value, state: 'PRIMED' }, found.version);
    });
    return compositionId;
  }

  async create(compositionId: string, body: Record<string, unknown>, status: number): Promise<Record<string, any>> {
    const response = await this.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send(body)
      .expect(status);
    return response.body as Record<string, any>;
  }

  async instance(compositionId: string, instanceId: string): Promise<InstanceView> {
    const response = await this.runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .expect(200);
    return response.body as InstanceView;
  }

  async instanceCount(compositionId: string): Promise<number> {
    const response = await this.runtime.http.get(`${BASE}/compositions/${compositionId}/instances`).expect(200);
    return (response.body as { automationCompositionList: unknown[] }).automationCompositionList.length;
  }

  async history(compositionId: string, instanceId: string): Promise<HistoryEvent[]> {
    const response = await this.runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
      .expect(200);
    return (response.body as { events: HistoryEvent[] }).events;
  }

  /** Marks an instance and its elements DEPLOYED, as the participants' ACKs would. */
  async markDeployed(instanceId: string): Promise<void> {
    await this.runtime.app.get(UnitOfWork).transaction(async (store) => {
      const found = await store.instances.find(instanceId);
      if (!found) {
        throw new Error(`no instance ${instanceId}`);
      }
      const elements = Object.fromEntries(
        Object.entries(found.value.elements).map(([id, element]) => [
          id,
          { ...element, deployState: 'DEPLOYED' as const, lockState: 'LOCKED' as const },
        ]),
      );
      await store.instances.update(
        { ...found.value, deployState: 'DEPLOYED', lockState: 'LOCKED', elements },
        found.version,
      );
    });
  }
}

describe('instance properties under PROPERTY_VALIDATION=strict (PostgreSQL)', () => {
  let typed: TypedRuntime;
  let compositionId: string;

  beforeAll(async () => {
    typed = await TypedRuntime.start('strict');
    compositionId = await typed.primedComposition();
  });

  afterAll(async () => {
    await typed.runtime.close();
  });

  it('stores a valid instance with the type defaults applied, inside the data type too', async () => {
    const body = instanceBody(compositionId);
    const created = await typed.create(compositionId, body, 201);
    const instance = await typed.instance(compositionId, created['instanceId'] as string);
    const [elementId] = Object.keys(body['elements'] as object);

    expect(instance.elements[elementId ?? '']?.properties).toMatchObject({
      endpoint: { host: 'web.example', port: 443, protocol: 'https' },
      labels: { team: 'blue' },
      requestTimeout: '5 s',
    });
    // The node template sets replicas: participants receive it with the composition, it is not copied.
    expect(instance.elements[elementId ?? '']?.properties).not.toHaveProperty('replicas');
  });

  it('refuses a creation with every problem in one 400, and stores nothing', async () => {
    const body = instanceBody(compositionId, {
      endpoint: { host: 42, port: 70000 },
      replicas: 11,
      requestTimeout: '5 parsecs',
      colour: 'blue',
    });
    const [elementId] = Object.keys(body['elements'] as object);
    const before = await typed.instanceCount(compositionId);

    const refused = (await typed.create(compositionId, body, 400)) as unknown as ErrorBody;

    const at = `elements["${elementId}"].properties`;
    expect(refused.errorDetails.split('\n')).toEqual([
      `${at}.endpoint.host: expected string, got 42`,
      `${at}.endpoint.port: must be in the range [1,65535] (in_range), got 70000`,
      `${at}.replicas: must be less than or equal to 10 (less_or_equal), got 11`,
      `${at}.requestTimeout: expected scalar-unit.time ("<number> <unit>", unit one of d, h, m, s, ms, us, ns), got "5 parsecs"`,
      `${at}.colour: unknown property: node type ${SIM_TYPE} and its parents do not define it`,
    ]);
    expect(await typed.instanceCount(compositionId)).toBe(before);
  });

  it('refuses a creation that omits a required property', async () => {
    const body = instanceBody(compositionId, {});
    const [elementId] = Object.keys(body['elements'] as object);

    const refused = (await typed.create(compositionId, body, 400)) as unknown as ErrorBody;

    expect(refused.errorDetails).toBe(
      `elements["${elementId}"].properties.endpoint: required by node type ${SIM_TYPE}, set neither by the ` +
        'instance nor by the node template, and no default',
    );
  });

  it('refuses an update of an undeployed instance and keeps the stored properties', async () => {
    const body = instanceBody(compositionId);
    const created = await typed.create(compositionId, body, 201);
    const instanceId = created['instanceId'] as string;
    const [elementId] = Object.keys(body['elements'] as object);
    const before = await typed.instance(compositionId, instanceId);

    const element = { id: elementId, definition: { name: ELEMENT_NAME, version: '1.0.0' } };
    const refused = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({
        ...body,
        instanceId,
        elements: {
          [elementId ?? '']: { ...element, properties: { endpoint: { host: 'web.example', protocol: 'ftp' } } },
        },
      })
      .expect(400);

    expect((refused.body as ErrorBody).errorDetails).toBe(
      `elements["${elementId}"].properties.endpoint.protocol: must be one of ["http","https"] (valid_values), got "ftp"`,
    );
    expect(await typed.instance(compositionId, instanceId)).toEqual(before);
  });

  it('refuses an update of a deployed instance whose merged properties break a constraint', async () => {
    const body = instanceBody(compositionId);
    const created = await typed.create(compositionId, body, 201);
    const instanceId = created['instanceId'] as string;
    const [elementId] = Object.keys(body['elements'] as object);
    await typed.markDeployed(instanceId);
    const before = await typed.instance(compositionId, instanceId);

    const refused = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({
        ...body,
        instanceId,
        elements: {
          [elementId ?? '']: {
            id: elementId,
            definition: { name: ELEMENT_NAME, version: '1.0.0' },
            properties: { replicas: 0 },
          },
        },
      })
      .expect(400);

    expect((refused.body as ErrorBody).errorDetails).toBe(
      `elements["${elementId}"].properties.replicas: must be greater than or equal to 1 (greater_or_equal), got 0`,
    );
    expect(await typed.instance(compositionId, instanceId)).toEqual(before);
  });

  it('refuses a migration whose properties break the target definition, and leaves the instance as it was', async () => {
    const body = instanceBody(compositionId);
    const created = await typed.create(compositionId, body, 201);
    const instanceId = created['instanceId'] as string;
    const [elementId] = Object.keys(body['elements'] as object);
    await typed.markDeployed(instanceId);
    const targetId = await typed.primedComposition();
    const before = await typed.instance(compositionId, instanceId);

    const refused = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({
        ...body,
        instanceId,
        compositionTargetId: targetId,
        elements: {
          [elementId ?? '']: {
            id: elementId,
            definition: { name: ELEMENT_NAME, version: '1.0.0' },
            properties: { labels: { team: 'x'.repeat(64) } },
          },
        },
      })
      .expect(400);

    expect((refused.body as ErrorBody).errorDetails).toContain(
      `elements["${elementId}"].properties.labels.team: must be of length 63 or less (max_length)`,
    );
    const after = await typed.instance(compositionId, instanceId);
    expect(after).toEqual(before);
    expect(after.deployState).toBe('DEPLOYED');
  });

  it('answers a dry run with what would be stored, and stores nothing', async () => {
    const before = await typed.instanceCount(compositionId);
    const body = instanceBody(compositionId);
    const [elementId] = Object.keys(body['elements'] as object);

    const preview = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances?dryRun=true`)
      .send(body)
      .expect(200);

    const answer = preview.body as { automationComposition: InstanceView; propertyProblems: unknown[] };
    expect(answer.propertyProblems).toEqual([]);
    expect(answer.automationComposition.elements[elementId ?? '']?.properties).toMatchObject({
      endpoint: { host: 'web.example', port: 443, protocol: 'https' },
    });
    expect(await typed.instanceCount(compositionId)).toBe(before);
    // The same body still creates: the dry run reserved neither its name nor its element ids.
    await typed.create(compositionId, body, 201);
  });

  it('refuses a dry run of a body that cannot be created, naming the field and the rule', async () => {
    const before = await typed.instanceCount(compositionId);
    const body = instanceBody(compositionId, { endpoint: { host: 'web.example' }, replicas: 'many' });
    const [elementId] = Object.keys(body['elements'] as object);

    const refused = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances?dryRun=true`)
      .send(body)
      .expect(400);
    const update = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances?dryRun=true`)
      .send({ ...instanceBody(compositionId), instanceId: randomUUID() })
      .expect(400);
    const badFlag = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances?dryRun=maybe`)
      .send(instanceBody(compositionId))
      .expect(400);

    expect((refused.body as ErrorBody).errorDetails).toBe(
      `elements["${elementId}"].properties.replicas: expected integer, got "many"`,
    );
    expect((update.body as ErrorBody).errorDetails).toBe(
      'dryRun: only a creation can be dry-run, and this body has an instanceId (an update)',
    );
    expect((badFlag.body as ErrorBody).errorDetails).toBe('dryRun: must be true or false, got "maybe"');
    expect(await typed.instanceCount(compositionId)).toBe(before);
  });
});

describe('instance properties under PROPERTY_VALIDATION=warn (PostgreSQL)', () => {
  let typed: TypedRuntime;
  let compositionId: string;

  beforeAll(async () => {
    typed = await TypedRuntime.start('warn');
    compositionId = await typed.primedComposition();
  });

  afterAll(async () => {
    await typed.runtime.close();
  });

  it('accepts an instance with problems and reports them in the history and the log', async () => {
    const warnings: string[] = [];
    const loggerWarn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
    try {
      const body = instanceBody(compositionId, { endpoint: { host: 'web.example' }, replicas: 0, colour: 'blue' });
      const [elementId] = Object.keys(body['elements'] as object);

      const created = await typed.create(compositionId, body, 201);
      const instanceId = created['instanceId'] as string;

      const instance = await typed.instance(compositionId, instanceId);
      expect(instance.elements[elementId ?? '']?.properties).toMatchObject({ replicas: 0, colour: 'blue' });
      const reported = (await typed.history(compositionId, instanceId)).filter(
        (event) => event.event === 'PROPERTY_PROBLEMS',
      );
      expect(reported).toHaveLength(1);
      expect(reported[0]?.detail).toMatchObject({ order: 'CREATE', mode: 'warn' });
      expect((reported[0]?.detail['problems'] as Array<{ path: string; rule: string }>).map((p) => p.rule)).toEqual([
        'property-constraint',
        'property-unknown',
      ]);
      expect(warnings.join('\n')).toContain(
        `elements["${elementId}"].properties.replicas: must be greater than or equal to 1 (greater_or_equal), got 0`,
      );
    } finally {
      loggerWarn.mockRestore();
    }
  });

  it('records no property event for a valid instance', async () => {
    const created = await typed.create(compositionId, instanceBody(compositionId), 201);
    const history = await typed.history(compositionId, created['instanceId'] as string);

    expect(history.filter((event) => event.event === 'PROPERTY_PROBLEMS')).toEqual([]);
  });

  it('answers a dry run with the problems it would accept', async () => {
    const body = instanceBody(compositionId, { endpoint: { host: 'web.example' }, replicas: 'many' });

    const preview = await typed.runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances?dryRun=true`)
      .send(body)
      .expect(200);

    const answer = preview.body as { propertyProblems: Array<{ rule: string; message: string }> };
    expect(answer.propertyProblems).toEqual([
      expect.objectContaining({ rule: 'property-type', message: 'expected integer, got "many"' }),
    ]);
  });
});
