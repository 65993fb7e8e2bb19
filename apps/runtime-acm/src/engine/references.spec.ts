import type { AutomationCompositionDeploy, ParticipantSync } from '@acm/contracts';

import { primeMessage } from './participant-messages';
import { EngineFixture } from './testing/engine-fixture';
import type { SentOrder } from './testing/engine-fixture';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const DB = 'acm.example.refs.Database';
const WEB = 'acm.example.refs.Web';
const DEPLOYED = { deployState: 'DEPLOYED', lockState: 'LOCKED' } as const;

async function deployingExample(webProperties?: Record<string, unknown>) {
  const fixture = new EngineFixture();
  const definition = await fixture.definition('tosca/examples/sim-references.yaml', () => P1);
  const instance = await fixture.instance(definition);
  const idOf = (name: string): string =>
    Object.values(instance.elements).find((element) => element.definition.name === name)!.id;
  const web = idOf(WEB);
  await fixture.order(instance.instanceId, 'DEPLOY', (stored) =>
    webProperties === undefined
      ? stored
      : { ...stored, elements: { ...stored.elements, [web]: { ...stored.elements[web]!, properties: webProperties } } },
  );
  const [first] = await fixture.take();
  return { fixture, instance, first: first!, db: idOf(DB), web: idOf(WEB) };
}

/** The Database's answer, with the outProperties it reports. */
function dbAnswer(sent: SentOrder, db: string, outProperties: Record<string, unknown>) {
  const ack = new EngineFixture().ackOf(sent, P1, DEPLOYED, { elementIds: [db] });
  return {
    ...ack,
    automationCompositionResultMap: { [db]: { ...ack.automationCompositionResultMap[db]!, outProperties } },
  };
}

function sentProperties(sent: SentOrder, elementId: string) {
  const message = sent.message as AutomationCompositionDeploy;
  const dto = (message.participantDtoList ?? [])
    .flatMap((entry) => entry.elementDtos)
    .find((element) => element.instanceElementTarget?.elementId === elementId);
  const deploy = (message.participantUpdatesList ?? [])
    .flatMap((entry) => entry.acElementList)
    .find((element) => element.id === elementId);
  return { composition: dto?.compositionElement?.inProperties, deploy: deploy?.properties };
}

describe('references in the messages a participant receives', () => {
  it('set the database going first, the web tier waiting for it, with no function in the message', async () => {
    const { first, db, web } = await deployingExample();

    expect(first.described[P1]).toEqual([db]);
    expect(sentProperties(first, web).deploy).toEqual({});
    expect(JSON.stringify(first.message)).not.toMatch(/get_attribute|get_property/);
  });

  it('send the web tier the url its database reported, as a plain value, and record it', async () => {
    const { fixture, instance, first, db, web } = await deployingExample();
    await fixture.engine.applyInstanceAck(dbAnswer(first, db, { url: 'postgres://db.example:5432/app' }));
    const [second] = await fixture.take();

    expect(second?.described[P1]).toEqual([web]);
    expect(sentProperties(second!, web).composition).toMatchObject({
      baseUrl: 'postgres://db.example:5432/app',
      configurationEntities: { database: { provider: 'acm-runtime', url: 'postgres://db.example:5432/app' } },
    });
    expect(JSON.stringify(second?.message)).not.toMatch(/get_attribute|get_property/);
    const resolved = (await fixture.events(instance.instanceId)).filter(
      (event) => event.event === 'REFERENCES_RESOLVED',
    );
    expect(resolved.map((event) => event.detail)).toEqual([
      {
        elementId: web,
        values: {
          baseUrl: 'postgres://db.example:5432/app',
          'configurationEntities.database.provider': 'acm-runtime',
          'configurationEntities.database.url': 'postgres://db.example:5432/app',
        },
      },
    ]);
  });

  it('fail the web tier, naming the reference, when its database never reported the url', async () => {
    const { fixture, instance, first, db, web } = await deployingExample();
    await fixture.engine.applyInstanceAck(dbAnswer(first, db, {}));
    const sent = await fixture.take();
    const current = await fixture.current(instance.instanceId);

    expect(sent.flatMap((order) => order.described[P1] ?? [])).not.toContain(web);
    expect(current?.stateChangeResult).toBe('FAILED');
    expect(current?.elements[web]?.message).toBe(`get_attribute [${DB}, url]: ${DB} has not reported url`);
  });

  it('leave out an instance element property that is not known yet, never sending the function', async () => {
    const fixture = new EngineFixture();
    const definition = await fixture.definition('tosca/examples/sim-references.yaml', () => P1);
    const instance = await fixture.instance(definition);
    const web = Object.values(instance.elements).find((element) => element.definition.name === WEB)!;
    await fixture.order(instance.instanceId, 'DEPLOY', (stored) => ({
      ...stored,
      elements: {
        ...stored.elements,
        [web.id]: { ...web, properties: { own: { get_attribute: [DB, 'url'] } } },
      },
    }));
    const [first] = await fixture.take();

    // The web tier waits for its database: the first message lists it with nothing to do, and the value it does not
    // know yet goes as null, which the encoding leaves out (ONAP's NON_NULL).
    expect(sentProperties(first!, web.id).deploy).toEqual({});
    expect(JSON.stringify(first?.message)).not.toMatch(/get_attribute|get_property/);
  });

  it('send the plain values in the SYNC after the deploy, and references as null in PRIME', async () => {
    const { fixture, instance, first, db, web } = await deployingExample({ own: { get_attribute: [DB, 'url'] } });
    await fixture.engine.applyInstanceAck(dbAnswer(first, db, { url: 'postgres://db' }));
    const [second] = await fixture.take();
    await fixture.engine.applyInstanceAck(fixture.ackOf(second!, P1, DEPLOYED, { elementIds: [web] }));
    const sync = (await fixture.take()).find((sent) => sent.messageType === 'PARTICIPANT_SYNC_MSG');

    const synced = (sync?.message as ParticipantSync | undefined)?.automationcompositionList?.[0]?.acElementList;
    expect(synced?.find((element) => element.id === web)?.properties).toEqual({ own: 'postgres://db' });
    expect(JSON.stringify(sync?.message)).not.toMatch(/get_attribute|get_property/);
    const definition = (await fixture.unitOfWork.read((store) => store.definitions.find(instance.compositionId)))!;
    const prime = primeMessage('m', 't', definition.value, fixture.templates.readDefinition(definition.value), 'PRIME');
    const webTemplate = (prime.participantDefinitionUpdates ?? [])
      .flatMap((update) => update.automationCompositionElementDefinitionList)
      .find((entry) => entry.acElementDefinitionId.name === WEB)?.automationCompositionElementToscaNodeTemplate;
    expect(webTemplate?.['properties']).toMatchObject({ baseUrl: null });
    expect(JSON.stringify(prime)).not.toMatch(/get_attribute|get_property/);
  });

  it('resolve a reference written only in an instance, its definition holding none, and wait for what it reads', async () => {
    const fixture = new EngineFixture();
    const definition = await fixture.definition('tosca/examples/sim-dependencies.yaml', () => P1);
    const instance = await fixture.instance(definition);
    const idOf = (name: string): string =>
      Object.values(instance.elements).find((element) => element.definition.name === name)!.id;
    const [monitor, database] = [idOf('acm.example.deps.Monitor'), idOf('acm.example.deps.Database')];
    await fixture.order(instance.instanceId, 'DEPLOY', (stored) => ({
      ...stored,
      elements: {
        ...stored.elements,
        [monitor]: {
          ...stored.elements[monitor]!,
          properties: { target: { get_attribute: ['acm.example.deps.Database', 'url'] } },
        },
      },
    }));
    const [first] = await fixture.take();
    expect(first?.described[P1]).not.toContain(monitor);
    expect(sentProperties(first!, monitor).deploy).toEqual({});

    await fixture.engine.applyInstanceAck(dbAnswer(first!, database, { url: 'postgres://deps' }));
    const dispatched = (await fixture.take()).find((sent) => sent.described[P1]?.includes(monitor));
    expect(sentProperties(dispatched!, monitor).deploy).toEqual({ target: 'postgres://deps' });
  });
});
