import type { AutomationCompositionDeployAck, ParticipantDto } from '@acm/contracts';
import { decodeMessage } from '@acm/contracts';
import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceOrder,
  JsonObject,
  MemberIdOf,
  OrderPlan,
  ReplaceUpdate,
} from '@acm/domain';
import {
  completedStateOf,
  expandGroups,
  groupMembers,
  planInstanceOrder,
  replaceStepOf,
  resizeGroup,
  transitionalStateFor,
} from '@acm/domain';
import type { InMemoryUnitOfWork } from '@acm/persistence/testing';
import { instanceOf } from '@acm/persistence/testing';
import { Logger } from '@nestjs/common';
import fc from 'fast-check';

import {
  EngineFixture,
  STARTED_AT,
  exampleTemplate,
  idAt,
  primedDefinitionOf,
  undeployedElementOf,
  inSession,
} from './testing/engine-fixture';
import type { OwnedElement } from './testing/engine-fixture';

/** mulberry32: the run's ACK schedule comes from one seed fast-check chose, so a failure replays. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const PARTICIPANTS = [
  '101c62b3-8918-41b9-a747-d21eb79c6c01',
  '101c62b3-8918-41b9-a747-d21eb79c6c02',
  '101c62b3-8918-41b9-a747-d21eb79c6c03',
];
const COMPOSITION = idAt('c', 1);
const INSTANCE = idAt('a', 1);
/** Forward orders, then the reverse ones: every order that follows the graph, in an order the states allow. */
const ORDERS: readonly InstanceOrder[] = ['DEPLOY', 'UNLOCK', 'LOCK', 'UNDEPLOY', 'DELETE'];

interface ElementSpec {
  readonly phase: number;
  readonly participant: number;
  /** Indexes of earlier elements it depends on (only those of the same or an earlier phase are kept). */
  readonly dependsOn: readonly number[];
  /** Written as TOSCA DependsOn requirements instead of the dependsOn property. */
  readonly asRequirements: boolean;
  /**
   * Earlier elements (same or earlier phase) its properties read: get_attribute of the url each reports, or
   * get_property of its provider. A reference is an implicit dependency: the same edge as dependsOn.
   */
  readonly references: ReadonlyArray<{ readonly target: number; readonly attribute: boolean }>;
}

/** What the element with this id reports when deployed, and what get_attribute [it, url] reads. */
const urlOf = (id: string): string => `http://${id}.example`;
const PROVIDER = 'prop-provider';

/** Everything an element waits for going up: what it depends on and what it references. */
function edgesOf(spec: ElementSpec): number[] {
  return [...new Set([...spec.dependsOn, ...spec.references.map((reference) => reference.target)])];
}

const elementName = (index: number): string => `acm.example.prop.E${index}`;
const elementId = (index: number): string => idAt('b', index);

/** Random compositions of up to `maxLength` elements, acyclic, each edge to the same or an earlier phase. */
const compositionOf = (maxLength: number): fc.Arbitrary<ElementSpec[]> =>
  fc
    .array(
      fc.record({
        phase: fc.integer({ min: 0, max: 3 }),
        participant: fc.integer({ min: 0, max: PARTICIPANTS.length - 1 }),
        picks: fc.array(fc.nat(), { maxLength: 4 }),
        asRequirements: fc.boolean(),
        reads: fc.array(fc.record({ pick: fc.nat(), attribute: fc.boolean() }), { maxLength: 3 }),
      }),
      { minLength: 1, maxLength },
    )
    .map((raw): ElementSpec[] =>
      raw.map((element, index) => ({
        phase: element.phase,
        participant: element.participant,
        asRequirements: element.asRequirements,
        // Acyclic by construction (only earlier elements), and never on a later phase (refused at commission).
        dependsOn: [
          ...new Set(
            index === 0
              ? []
              : element.picks.map((pick) => pick % index).filter((target) => raw[target]!.phase <= element.phase),
          ),
        ],
        references:
          index === 0
            ? []
            : element.reads
                .map((read) => ({ target: read.pick % index, attribute: read.attribute }))
                .filter((read) => raw[read.target]!.phase <= element.phase),
      })),
    );

const compositionArbitrary = compositionOf(30);

function serviceTemplate(specs: readonly ElementSpec[]): JsonObject {
  const nodeTemplates: Record<string, unknown> = Object.fromEntries(
    specs.map((spec, index) => {
      const dependsOn = spec.dependsOn.map(elementName);
      return [
        elementName(index),
        {
          version: '1.0.0',
          type: SIM_TYPE,
          type_version: '1.0.0',
          properties: {
            startPhase: spec.phase,
            provider: PROVIDER,
            ...(spec.asRequirements ? {} : { dependsOn }),
            ...(spec.references.length === 0 ? {} : { configurationEntities: { refs: referencesOf(spec) } }),
          },
          ...(spec.asRequirements ? { requirements: dependsOn.map((name) => ({ dependency: name })) } : {}),
        },
      ];
    }),
  );
  nodeTemplates['acm.example.prop.Composition'] = {
    version: '1.0.0',
    type: 'org.onap.policy.clamp.acm.AutomationComposition',
    type_version: '1.0.1',
    properties: { elements: specs.map((_spec, index) => ({ name: elementName(index), version: '1.0.0' })) },
  };
  return {
    ...exampleTemplate('tosca/examples/sim-dependencies.yaml'),
    topology_template: { node_templates: nodeTemplates },
  };
}

/** The references of an element, keyed `r<position>`. */
function referencesOf(spec: ElementSpec): Record<string, unknown> {
  return Object.fromEntries(
    spec.references.map((reference, position) => [
      `r${position}`,
      reference.attribute
        ? { get_attribute: [elementName(reference.target), 'url'] }
        : { get_property: [elementName(reference.target), 'provider'] },
    ]),
  );
}

/** The plain values a participant must receive for those references, once what they read has reported. */
function expectedValuesOf(spec: ElementSpec, idOf: (index: number) => string): Record<string, unknown> {
  return Object.fromEntries(
    spec.references.map((reference, position) => [
      `r${position}`,
      reference.attribute ? urlOf(idOf(reference.target)) : PROVIDER,
    ]),
  );
}

/** The generated elements, each on the participant its spec names. */
function ownedOf(specs: readonly ElementSpec[]): OwnedElement[] {
  return specs.map((spec, index) => ({
    name: elementName(index),
    version: '1.0.0',
    participantId: PARTICIPANTS[spec.participant]!,
  }));
}

/** The generated composition, primed. */
function definitionFor(specs: readonly ElementSpec[]): CompositionDefinition {
  return primedDefinitionOf(serviceTemplate(specs), ownedOf(specs), {
    compositionId: COMPOSITION,
    name: 'prop',
    revisionId: idAt('e', 1),
  });
}

/** An UNDEPLOYED instance of the generated composition, the element at `index` with id `idOf(index)`. */
function instanceFor(
  specs: readonly ElementSpec[],
  idOf: (index: number) => string,
  overrides: Partial<AutomationComposition>,
): AutomationComposition {
  const elements = ownedOf(specs).map((owned, index) => undeployedElementOf(idOf(index), owned));
  return instanceOf(COMPOSITION, elements, { lastMsg: STARTED_AT, ...overrides });
}

/** What an element must wait for in an order, from the generated composition itself. */
function waitsOf(specs: readonly ElementSpec[], order: InstanceOrder, id: string): string[] {
  const index = specs.findIndex((_spec, position) => elementId(position) === id);
  const forward = order === 'DEPLOY' || order === 'UNLOCK';
  const awaited = forward
    ? edgesOf(specs[index]!)
    : specs.flatMap((spec, position) => (edgesOf(spec).includes(index) ? [position] : []));
  return awaited.map(elementId).sort();
}

interface Work {
  readonly messageId: string;
  readonly participantId: string;
  readonly elementId: string;
}

interface Ack {
  readonly ack: AutomationCompositionDeployAck;
}

/** A participant's view of a phase message: the message id, its phase and the elements it describes. */
function phaseMessageOf(
  value: string,
): { messageId: string; phase: number; dtos: ParticipantDto[]; raw: string } | undefined {
  const decoded = decodeMessage(value);
  if (!decoded.ok) {
    return undefined;
  }
  const message = decoded.message;
  if (
    message.messageType !== 'AUTOMATION_COMPOSITION_DEPLOY' &&
    message.messageType !== 'AUTOMATION_COMPOSITION_STATE_CHANGE'
  ) {
    return undefined;
  }
  return {
    messageId: message.messageId,
    phase: message.startPhase ?? 0,
    dtos: message.participantDtoList ?? [],
    raw: value,
  };
}

/**
 * Takes the queued messages as participants would: from each phase message, what it asks them to act on. A
 * participant acts on the elements of the message's phase; the others are described for context.
 */
async function takeWork(
  unitOfWork: InMemoryUnitOfWork,
  phaseOf: (id: string) => number | undefined,
): Promise<Array<Work & { readonly phase: number; readonly inProperties: JsonObject }>> {
  const queued = unitOfWork.queuedOutbox();
  await unitOfWork.deleteOutbox(queued.map((record) => record.id));
  return queued.flatMap((record) => {
    const message = phaseMessageOf(record.value);
    if (message === undefined) {
      return [];
    }
    // A participant never receives a function: every reference went as a plain value.
    expect(message.raw).not.toMatch(/get_attribute|get_property/);
    return message.dtos.flatMap((dto) =>
      dto.elementDtos.flatMap((elementDto) => {
        const elementId = elementDto.instanceElementTarget?.elementId ?? '';
        return phaseOf(elementId) === message.phase
          ? [
              {
                messageId: message.messageId,
                participantId: dto.participantId,
                elementId,
                phase: message.phase,
                inProperties: elementDto.compositionElement?.inProperties ?? {},
              },
            ]
          : [];
      }),
    );
  });
}

/**
 * One run: a random composition, deployed, unlocked, locked, undeployed and deleted through the engine's public
 * surface (startInstanceOrder as the instantiation service calls it, applyInstanceAck as the inbox listener does),
 * with every ACK answered in a random order, some twice, and ACKs of the previous order replayed.
 */
async function run(specs: readonly ElementSpec[], limit: number | null, seed: number): Promise<void> {
  const next = random(seed);
  const { clock, unitOfWork, templates, engine } = new EngineFixture();
  const definition = definitionFor(specs);
  const info = templates.read(definition.serviceTemplate);
  const phaseOfId = new Map(specs.map((spec, index) => [elementId(index), spec.phase]));
  const instance = instanceFor(specs, elementId, {
    instanceId: INSTANCE,
    name: 'PropInstance',
    metadata: limit === null ? null : { maxParallelElements: limit },
    revisionId: idAt('e', 2),
  });
  await unitOfWork.transaction(async (store) => {
    await store.definitions.insert(definition);
    await store.instances.insert(instance);
  });
  const current = async (): Promise<AutomationComposition | undefined> =>
    (await unitOfWork.read((store) => store.instances.find(INSTANCE)))?.value;

  let previousAcks: Ack[] = [];
  for (const order of ORDERS) {
    const before = (await current())!;
    const plan = planInstanceOrder({
      order,
      instance: before,
      templates: info.elements,
      maxParallelElements: limit,
    });
    expect(plan.maxParallelElements).toBe(limit);
    const done = completedStateOf(transitionalStateFor(order))!;
    const planned = new Map(
      plan.steps.flatMap((step) => step.elements.map((element) => [element.elementId, { step, element }])),
    );
    const pending: Work[] = [];
    const acks: Ack[] = [];
    const dispatched = new Set<string>();

    /** Takes the queued messages as participants would, checking each dispatch against the state it left in. */
    const deliver = async (): Promise<void> => {
      const asked = await takeWork(unitOfWork, (id) => phaseOfId.get(id));
      const state = await current();
      for (const work of asked) {
        const id = work.elementId;
        expect(dispatched.has(id)).toBe(false);
        dispatched.add(id);
        // Its phase is open: every element of an earlier phase of the walk has reached the target.
        const entry = planned.get(id);
        expect(entry).toBeDefined();
        expect(entry!.step.phase).toBe(work.phase);
        const reached = (otherId: string): boolean => {
          const other = state?.elements[otherId];
          return other !== undefined && other.deployState === done.deployState && other.lockState === done.lockState;
        };
        for (const [otherId, phase] of phaseOfId) {
          const earlier = ['DEPLOY', 'UNLOCK'].includes(order) ? phase < work.phase : phase > work.phase;
          if (earlier) {
            expect(reached(otherId)).toBe(true);
          }
        }
        // ...and everything it waits for (its dependencies, or its dependents going down) has reached it too,
        // as the composition says (not as the planner says: the plan must name the same elements).
        const awaited = waitsOf(specs, order, id);
        expect([...entry!.element.waitsFor].sort()).toEqual(awaited);
        for (const awaitedId of awaited) {
          expect(reached(awaitedId)).toBe(true);
        }
        // What it references reached the target, so the participant got the value each reads, plain.
        const spec = specs[Number(id.slice(-12))]!;
        if (order === 'DEPLOY' && spec.references.length > 0) {
          expect((work.inProperties['configurationEntities'] as JsonObject)['refs']).toEqual(
            expectedValuesOf(spec, elementId),
          );
        }
        pending.push({ messageId: work.messageId, participantId: work.participantId, elementId: id });
      }
      // Never more elements in flight (dispatched, not answered) than the limit allows.
      if (limit !== null) {
        expect(pending.length).toBeLessThanOrEqual(limit);
      }
    };

    await inSession(unitOfWork, async (session, store) => {
      const found = await store.instances.findForUpdate(INSTANCE);
      await engine.startInstanceOrder(session, found!, definition, order);
    });
    await deliver();
    while (pending.length > 0) {
      clock.advance(1 + Math.floor(next() * 500));
      const roll = next();
      if (roll < 0.1 && previousAcks.length > 0) {
        // A late ACK of the order before: stale, it must change nothing.
        await engine.applyInstanceAck(previousAcks[Math.floor(next() * previousAcks.length)]!.ack);
      } else if (roll < 0.2 && acks.length > 0) {
        // A redelivered ACK of this order.
        await engine.applyInstanceAck(acks[Math.floor(next() * acks.length)]!.ack);
      } else {
        const [work] = pending.splice(Math.floor(next() * pending.length), 1);
        const ack: AutomationCompositionDeployAck = {
          messageType:
            order === 'DEPLOY' ? 'AUTOMATION_COMPOSITION_DEPLOY_ACK' : 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
          responseTo: work!.messageId,
          automationCompositionId: INSTANCE,
          participantId: work!.participantId,
          stateChangeResult: 'NO_ERROR',
          automationCompositionResultMap: {
            [work!.elementId]: {
              deployState: done.deployState,
              lockState: done.lockState,
              result: true,
              ...(order === 'DEPLOY' ? { outProperties: { url: urlOf(work!.elementId) } } : {}),
            },
          },
        };
        acks.push({ ack });
        await engine.applyInstanceAck(ack);
      }
      await deliver();
    }

    // Every element reached the target, each dispatched exactly once, and the plan named every one of them.
    expect([...dispatched].sort()).toEqual([...planned.keys()].sort());
    expect(dispatched.size).toBe(specs.length);
    const after = await current();
    if (order === 'DELETE') {
      expect(after).toBeUndefined();
    } else {
      expect(after).toMatchObject({
        deployState: done.deployState,
        lockState: done.lockState,
        stateChangeResult: 'NO_ERROR',
      });
      expect(
        Object.values(after!.elements).every(
          (e) => e.deployState === done.deployState && e.lockState === done.lockState,
        ),
      ).toBe(true);
    }
    await expectHistoryAllowedBy(unitOfWork, plan, order);
    previousAcks = acks;
  }
}

/**
 * The order the history recorded is one the plan allows: each element dispatched once, in the plan's phase, after
 * every element of the walk's earlier phases and every element it waits for had its result recorded.
 */
async function expectHistoryAllowedBy(
  unitOfWork: InMemoryUnitOfWork,
  plan: OrderPlan,
  order: InstanceOrder,
): Promise<void> {
  const events = await unitOfWork.read((store) => store.events.list(INSTANCE, 100_000));
  const ordered = events.filter((event) => event.event === 'ORDERED' && event.detail['order'] === order).at(-1)!;
  const mine = events.filter((event) => event.operationId === ordered.operationId);
  const results = new Map<string, number>();
  const dispatchedAt = new Map<string, number>();
  mine.forEach((event, index) => {
    if (event.event === 'ELEMENT_RESULT') {
      results.set(event.detail['elementId'], index);
    }
    if (event.event === 'PHASE_STARTED' || event.event === 'ELEMENTS_DISPATCHED') {
      for (const id of event.detail['elementIds'] as string[]) {
        expect(dispatchedAt.has(id)).toBe(false);
        dispatchedAt.set(id, index);
      }
    }
  });
  const steps = plan.steps.flatMap((step, position) => step.elements.map((element) => ({ step, position, element })));
  expect([...dispatchedAt.keys()].sort()).toEqual(steps.map(({ element }) => element.elementId).sort());
  const phaseRank = new Map<number, number>();
  for (const step of plan.steps) {
    if (!phaseRank.has(step.phase)) {
      phaseRank.set(step.phase, phaseRank.size);
    }
  }
  for (const { step, element } of steps) {
    const at = dispatchedAt.get(element.elementId)!;
    for (const awaited of element.waitsFor) {
      if (dispatchedAt.has(awaited)) {
        expect(results.get(awaited)).toBeLessThan(at);
      }
    }
    for (const other of steps) {
      if (phaseRank.get(other.step.phase)! < phaseRank.get(step.phase)!) {
        expect(results.get(other.element.elementId)).toBeLessThan(at);
      }
    }
  }
}

/** The element ids of instance `copy` (ids are unique across instances, as the store requires). */
const copyElementId = (copy: number, index: number): string =>
  `b${copy}000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
const copyInstanceId = (copy: number): string => `a${copy}000000-0000-4000-8000-000000000001`;

/**
 * Many instances of one random composition deployed at once under a runtime-wide limit (MAX_PARALLEL_ELEMENTS),
 * each maybe with its own maxParallelElements, ACKs answered in a random order across instances, the slot filler
 * run after every commit as the runtime's post-commit nudge runs it. After every step: never more than the limit in
 * flight across all instances, nor more than an instance's own limit in it; no free slot while an operation waits;
 * an operation still waiting after a fill saw no younger one served in it (the stable order: oldest first). Every
 * element goes once, after its phase opened and its dependencies were done, and every instance is DEPLOYED.
 */
async function runMany(
  specs: readonly ElementSpec[],
  copies: readonly (number | null)[],
  runtimeLimit: number,
  seed: number,
): Promise<void> {
  const next = random(seed);
  const { clock, unitOfWork, engine, slots } = new EngineFixture({ MAX_PARALLEL_ELEMENTS: String(runtimeLimit) });
  const phaseOf = (id: string): number => specs[Number(id.slice(-12))]!.phase;
  const definition = definitionFor(specs);
  await unitOfWork.transaction(async (store) => {
    await store.definitions.insert(definition);
    for (const [copy, limit] of copies.entries()) {
      await store.instances.insert(
        instanceFor(specs, (index) => copyElementId(copy, index), {
          instanceId: copyInstanceId(copy),
          name: `PropInstance${copy}`,
          metadata: limit === null ? null : { maxParallelElements: limit },
          revisionId: `e0000000-0000-4000-8000-00000000010${copy}`,
        }),
      );
    }
  });
  const stateOf = async (copy: number): Promise<AutomationComposition> =>
    (await unitOfWork.read((store) => store.instances.find(copyInstanceId(copy))))!.value;
  const deployed = (element: AutomationComposition['elements'][string] | undefined): boolean =>
    element?.deployState === 'DEPLOYED';

  const pending: Array<Work & { readonly copy: number }> = [];
  const dispatched = new Set<string>();
  /** Start order of the operations: the copy ordered first is the oldest. */
  const startRank = new Map<number, number>();

  /** Takes the queued messages, checks each dispatch, then the limits and the stable order. */
  const deliver = async (): Promise<void> => {
    const asked = await takeWork(unitOfWork, phaseOf);
    const served = new Set<number>();
    for (const work of asked) {
      const id = work.elementId;
      const copy = Number(id.slice(1, 2));
      const state = await stateOf(copy);
      expect(dispatched.has(id)).toBe(false);
      dispatched.add(id);
      served.add(copy);
      // Its phase is open and its dependencies are done, in its own instance.
      for (const [otherId, other] of Object.entries(state.elements)) {
        if (phaseOf(otherId) < work.phase) {
          expect(deployed(other)).toBe(true);
        }
      }
      const spec = specs[Number(id.slice(-12))]!;
      for (const dependency of edgesOf(spec)) {
        expect(deployed(state.elements[copyElementId(copy, dependency)])).toBe(true);
      }
      if (spec.references.length > 0) {
        expect((work.inProperties['configurationEntities'] as JsonObject)['refs']).toEqual(
          expectedValuesOf(spec, (index) => copyElementId(copy, index)),
        );
      }
      pending.push({ messageId: work.messageId, participantId: work.participantId, elementId: id, copy });
    }
    expect(pending.length).toBeLessThanOrEqual(runtimeLimit);
    for (const [copy, limit] of copies.entries()) {
      if (limit !== null) {
        expect(pending.filter((work) => work.copy === copy).length).toBeLessThanOrEqual(limit);
      }
    }
    const [inUse, waiting] = await unitOfWork.read(
      async (store) => [await store.operations.slotsInUse(), await store.operations.listSlotWaiting(1_000)] as const,
    );
    // What the runtime counts is what participants hold, and no slot stays free while an operation waits.
    expect(inUse).toBe(pending.length);
    if (waiting.length > 0) {
      expect(inUse).toBe(runtimeLimit);
    }
    for (const operation of waiting) {
      const rank = startRank.get(Number(operation.targetId.slice(1, 2)))!;
      for (const copy of served) {
        expect(startRank.get(copy)!).toBeLessThanOrEqual(rank);
      }
    }
  };

  // Ordered one after the other (the clock moves), each order's commit followed by the filler, as after a commit.
  const orderOf = [...copies.keys()].sort(() => next() - 0.5);
  for (const copy of orderOf) {
    clock.advance(1);
    startRank.set(copy, startRank.size);
    await inSession(unitOfWork, async (session, store) => {
      const found = await store.instances.findForUpdate(copyInstanceId(copy));
      await engine.startInstanceOrder(session, found!, definition, 'DEPLOY');
    });
    await slots.fill();
    await deliver();
  }
  while (pending.length > 0) {
    clock.advance(1 + Math.floor(next() * 50));
    const [work] = pending.splice(Math.floor(next() * pending.length), 1);
    const ack: AutomationCompositionDeployAck = {
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY_ACK',
      responseTo: work!.messageId,
      automationCompositionId: copyInstanceId(work!.copy),
      participantId: work!.participantId,
      stateChangeResult: 'NO_ERROR',
      automationCompositionResultMap: {
        [work!.elementId]: {
          deployState: 'DEPLOYED',
          lockState: 'LOCKED',
          result: true,
          outProperties: { url: urlOf(work!.elementId) },
        },
      },
    };
    await engine.applyInstanceAck(ack);
    if (next() < 0.2) {
      // A redelivered ACK changes nothing, the slots included.
      await engine.applyInstanceAck(ack);
    }
    await slots.fill();
    await deliver();
  }
  expect(dispatched.size).toBe(specs.length * copies.length);
  for (const copy of copies.keys()) {
    expect(await stateOf(copy)).toMatchObject({ deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });
  }
  expect(await unitOfWork.read((store) => store.operations.slotsInUse())).toBe(0);
}

/** What an UPDATE does to one generated element: nothing, a change in place, or a change of its non-updatable zone. */
type UpdateKind = 'KEEP' | 'IN_PLACE' | 'ZONE';

/** The generated composition on the replace example's types: `zone` is `updatable: false`, `baseUrl` is not. */
function replaceTemplate(specs: readonly ElementSpec[]): JsonObject {
  return { ...serviceTemplate(specs), node_types: exampleTemplate('tosca/examples/sim-replace.yaml').node_types };
}

/** One message as a participant reads it: which ONAP order, its start phase and the elements it describes. */
function replaceWorkOf(
  value: string,
): { order: string; messageId: string; phase: number; dtos: ParticipantDto[] } | undefined {
  const decoded = decodeMessage(value);
  if (!decoded.ok) {
    return undefined;
  }
  const message = decoded.message;
  switch (message.messageType) {
    case 'AUTOMATION_COMPOSITION_DEPLOY':
      return {
        order: 'DEPLOY',
        messageId: message.messageId,
        phase: message.startPhase ?? 0,
        dtos: message.participantDtoList ?? [],
      };
    case 'AUTOMATION_COMPOSITION_STATE_CHANGE':
      return {
        order: message.deployOrderedState ?? 'NONE',
        messageId: message.messageId,
        phase: message.startPhase ?? 0,
        dtos: message.participantDtoList ?? [],
      };
    case 'PROPERTIES_UPDATE':
      return { order: 'UPDATE', messageId: message.messageId, phase: -1, dtos: message.participantDtoList ?? [] };
    default:
      return undefined;
  }
}

/**
 * One UPDATE of a deployed random composition through the engine's public surface: each element kept, changed in
 * place or moved to another zone (non-updatable). Participants answer in a random order, some answers twice. Checks,
 * at each dispatch and at the end: a zone change always replaces (one UNDEPLOY, then one DEPLOY, never an in-place
 * update) and an in-place change is one PROPERTIES_UPDATE; every destroy comes after the destroys of the elements
 * of later phases and of its dependents, every create after all destroys and after the creates of earlier phases
 * and of its dependencies; the in-place update after every create; the instance ends DEPLOYED with the new values.
 */
async function runReplace(specs: readonly ElementSpec[], kinds: readonly UpdateKind[], seed: number): Promise<void> {
  const next = random(seed);
  const { clock, unitOfWork, engine } = new EngineFixture();
  const definition = primedDefinitionOf(replaceTemplate(specs), ownedOf(specs), {
    compositionId: COMPOSITION,
    name: 'prop',
    revisionId: idAt('e', 1),
  });
  const kindOf = (index: number): UpdateKind => kinds[index % kinds.length] ?? 'KEEP';
  const indexOf = (id: string): number => specs.findIndex((_spec, index) => elementId(index) === id);
  const elements = ownedOf(specs).map((owned, index) => ({
    ...undeployedElementOf(elementId(index), owned, { zone: 'a', baseUrl: 'http://a' }),
    deployState: 'DEPLOYED' as const,
    lockState: 'LOCKED' as const,
  }));
  const instance = instanceOf(COMPOSITION, elements, {
    instanceId: INSTANCE,
    name: 'PropInstance',
    lastMsg: STARTED_AT,
    deployState: 'DEPLOYED',
    lockState: 'LOCKED',
    revisionId: idAt('e', 2),
  });
  await unitOfWork.transaction(async (store) => {
    await store.definitions.insert(definition);
    await store.instances.insert(instance);
  });
  const nextProperties = Object.fromEntries(
    specs.flatMap((_spec, index): Array<[string, JsonObject]> => {
      switch (kindOf(index)) {
        case 'KEEP':
          return [];
        case 'IN_PLACE':
          return [[elementId(index), { zone: 'a', baseUrl: 'http://b' }]];
        case 'ZONE':
          return [[elementId(index), { zone: 'b', baseUrl: 'http://a' }]];
      }
    }),
  );
  await inSession(unitOfWork, async (session, store) => {
    const found = await store.instances.findForUpdate(INSTANCE);
    await engine.startInstanceOrder(session, found!, definition, 'UPDATE', {
      replace: { next: nextProperties, removeOrphans: false },
    });
  });

  /** Each element's messages, in the order they left, and the moment each was answered (its position in `log`). */
  const log: Array<{ order: string; id: string; answered: boolean }> = [];
  const pending: Array<{ order: string; messageId: string; participantId: string; id: string; entry: number }> = [];
  const answeredBefore = (order: string, id: string): boolean =>
    log.some((entry) => entry.order === order && entry.id === id && entry.answered);
  const replaced = specs.flatMap((_spec, index) => (kindOf(index) === 'ZONE' ? [elementId(index)] : []));

  const deliver = async (): Promise<void> => {
    const queued = unitOfWork.queuedOutbox();
    await unitOfWork.deleteOutbox(queued.map((record) => record.id));
    for (const record of queued) {
      const message = replaceWorkOf(record.value);
      if (message === undefined) {
        continue;
      }
      for (const dto of message.dtos) {
        for (const elementDto of dto.elementDtos) {
          const id = elementDto.instanceElementTarget?.elementId ?? '';
          const index = indexOf(id);
          if (message.order !== 'UPDATE' && specs[index]!.phase !== message.phase) {
            continue;
          }
          const spec = specs[index]!;
          if (message.order === 'UNDEPLOY') {
            for (const other of replaced) {
              const otherSpec = specs[indexOf(other)]!;
              if (
                otherSpec.phase > spec.phase ||
                (otherSpec.phase === spec.phase && otherSpec.dependsOn.includes(index))
              ) {
                expect(answeredBefore('UNDEPLOY', other)).toBe(true);
              }
            }
          }
          if (message.order === 'DEPLOY') {
            for (const other of replaced) {
              expect(answeredBefore('UNDEPLOY', other)).toBe(true);
              const otherSpec = specs[indexOf(other)]!;
              if (
                otherSpec.phase < spec.phase ||
                (otherSpec.phase === spec.phase && spec.dependsOn.includes(indexOf(other)))
              ) {
                expect(answeredBefore('DEPLOY', other)).toBe(true);
              }
            }
          }
          if (message.order === 'UPDATE') {
            for (const other of replaced) {
              expect(answeredBefore('DEPLOY', other)).toBe(true);
            }
          }
          log.push({ order: message.order, id, answered: false });
          pending.push({
            order: message.order,
            messageId: message.messageId,
            participantId: dto.participantId,
            id,
            entry: log.length - 1,
          });
        }
      }
    }
  };

  await deliver();
  const acks: AutomationCompositionDeployAck[] = [];
  while (pending.length > 0) {
    clock.advance(1 + Math.floor(next() * 500));
    if (next() < 0.15 && acks.length > 0) {
      await engine.applyInstanceAck(acks[Math.floor(next() * acks.length)]!);
    } else {
      const [work] = pending.splice(Math.floor(next() * pending.length), 1);
      const undeployed = work!.order === 'UNDEPLOY';
      const ack: AutomationCompositionDeployAck = {
        messageType:
          work!.order === 'UNDEPLOY' ? 'AUTOMATION_COMPOSITION_STATECHANGE_ACK' : 'AUTOMATION_COMPOSITION_DEPLOY_ACK',
        responseTo: work!.messageId,
        automationCompositionId: INSTANCE,
        participantId: work!.participantId,
        stateChangeResult: 'NO_ERROR',
        automationCompositionResultMap: {
          [work!.id]: {
            deployState: undeployed ? 'UNDEPLOYED' : 'DEPLOYED',
            lockState: undeployed ? 'NONE' : 'LOCKED',
            result: true,
          },
        },
      };
      log[work!.entry] = { ...log[work!.entry]!, answered: true };
      acks.push(ack);
      await engine.applyInstanceAck(ack);
    }
    await deliver();
  }

  // A zone change always replaces: one UNDEPLOY then one DEPLOY; an in-place change is one update; nothing else.
  specs.forEach((_spec, index) => {
    const id = elementId(index);
    const orders = log.filter((entry) => entry.id === id).map((entry) => entry.order);
    const expected = { KEEP: [], IN_PLACE: ['UPDATE'], ZONE: ['UNDEPLOY', 'DEPLOY'] }[kindOf(index)];
    expect(orders).toEqual(expected);
  });
  const after = (await unitOfWork.read((store) => store.instances.find(INSTANCE)))!.value;
  expect(after).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
  specs.forEach((_spec, index) => {
    const element = after.elements[elementId(index)]!;
    expect([element.deployState, element.properties]).toEqual([
      'DEPLOYED',
      nextProperties[elementId(index)] ?? { zone: 'a', baseUrl: 'http://a' },
    ]);
  });
}

/** A generated element that may be a group: its count at creation and the count an UPDATE then asks for. */
interface GroupedSpec extends ElementSpec {
  /** null: an ordinary element; else the node template's `count` (1–4). */
  readonly count: number | null;
  /** The count the UPDATE gives a group (ignored for an ordinary element). */
  readonly nextCount: number;
}

const MAX_COUNT = 4;
const GROUPED_ELEMENTS = 10;
/** A property of every group's node template whose value each member gets with its own index and count. */
const MEMBER_VALUE = 'm-%index%-of-%count%';

const groupedCompositionArbitrary = fc
  .record({
    specs: compositionOf(GROUPED_ELEMENTS),
    counts: fc.array(fc.option(fc.integer({ min: 1, max: MAX_COUNT }), { nil: null, freq: 2 }), {
      minLength: GROUPED_ELEMENTS,
      maxLength: GROUPED_ELEMENTS,
    }),
    nextCounts: fc.array(fc.integer({ min: 1, max: MAX_COUNT }), {
      minLength: GROUPED_ELEMENTS,
      maxLength: GROUPED_ELEMENTS,
    }),
  })
  .map(({ specs, counts, nextCounts }): GroupedSpec[] =>
    specs.map((spec, index) => ({ ...spec, count: counts[index] ?? null, nextCount: nextCounts[index]! })),
  );

/**
 * Member k of the group whose member 0 is `baseId`. The runtime derives a UUID v5 (application/group-members.ts);
 * the expansion takes the derivation as an argument, and any stable, distinct id serves here: the template index
 * stays in the last 12 digits, the member index is the second character.
 */
const memberIdOf: MemberIdOf = (baseId, index) => `${baseId.slice(0, 1)}${index}${baseId.slice(2)}`;
const templateIndexOf = (id: string): number => Number(id.slice(-12));
const memberIndexOfId = (id: string): number => Number(id.slice(1, 2));

/** Which member of a group target the reference at `position` reads: one that exists before and after the UPDATE. */
function memberReadBy(target: GroupedSpec, position: number): number {
  return position % Math.min(target.count ?? 1, target.nextCount);
}

/**
 * The generated composition with its groups: a group's node template has `count` and bounds, a property whose value
 * holds `%index%` and `%count%`, and a reference to a group reads one member by index.
 */
function groupedTemplate(specs: readonly GroupedSpec[]): JsonObject {
  const template = serviceTemplate(specs);
  const topology = template['topology_template'] as { node_templates: Record<string, JsonObject> };
  specs.forEach((spec, index) => {
    const nodeTemplate = topology.node_templates[elementName(index)]!;
    const properties = nodeTemplate['properties'] as JsonObject;
    if (spec.count !== null) {
      nodeTemplate['count'] = spec.count;
      nodeTemplate['metadata'] = { count_min: 1, count_max: MAX_COUNT };
      properties['member'] = MEMBER_VALUE;
    }
    if (spec.references.length > 0) {
      properties['configurationEntities'] = {
        refs: Object.fromEntries(
          spec.references.map((reference, position) => {
            const target = specs[reference.target]!;
            const member = target.count === null ? [] : [memberReadBy(target, position)];
            const name = reference.attribute ? 'url' : 'provider';
            const path = [elementName(reference.target), ...member, name];
            return [`r${position}`, reference.attribute ? { get_attribute: path } : { get_property: path }];
          }),
        ),
      };
    }
  });
  return template;
}

/** The plain values a participant must receive for the references of a (member of a) generated element. */
function groupedValuesOf(specs: readonly GroupedSpec[], spec: GroupedSpec): Record<string, unknown> {
  return Object.fromEntries(
    spec.references.map((reference, position) => {
      const target = specs[reference.target]!;
      const member = target.count === null ? 0 : memberReadBy(target, position);
      const id = member === 0 ? elementId(reference.target) : memberIdOf(elementId(reference.target), member);
      return [`r${position}`, reference.attribute ? urlOf(id) : PROVIDER];
    }),
  );
}

/** The instance properties a DEPLOY message gives one element (ONAP's participantUpdatesList), if it is one. */
function deployedProperties(value: string, id: string): JsonObject | undefined {
  const decoded = decodeMessage(value);
  if (!decoded.ok || decoded.message.messageType !== 'AUTOMATION_COMPOSITION_DEPLOY') {
    return undefined;
  }
  return (decoded.message.participantUpdatesList ?? [])
    .flatMap((update) => update.acElementList)
    .find((element) => element.id === id)?.properties;
}

/** One message to one participant about one element, as the grouped run logs it. */
interface Dispatch {
  readonly order: string;
  readonly id: string;
  answered: boolean;
}

/**
 * One run with groups, through the engine's public surface: the instance body lists one element per node template
 * (a group's with its count) and is expanded by the runtime's own `expandGroups`; it is deployed, then an UPDATE
 * changes every group's count, its members added and removed by the runtime's own `resizeGroup` and handed to the
 * engine as InstantiationService hands them (a replacing UPDATE: the kept and new members in `next`, the removed
 * ones `orphaned`). Participants answer in a random order, some answers twice. Checks, at each dispatch: no member
 * before every member of what it depends on or references (a dependency on a group is on all its members) and every
 * element of an earlier phase reached the target; references read the member they name, as plain values; `%index%`
 * and `%count%` substituted per member; a removed member undeployed (and deleted) only after the removed members of
 * the same group with a higher index, of what depends on it and of later phases; no member added before every
 * removal is done. At the end of each order: each element dispatched as the plan's steps say, no more, no less (the
 * plan's steps equal what participants received and what the history recorded), the instance DEPLOYED with exactly
 * the members the counts say.
 */
async function runGroups(specs: readonly GroupedSpec[], seed: number): Promise<void> {
  const next = random(seed);
  const { clock, unitOfWork, templates, engine } = new EngineFixture();
  const owned = ownedOf(specs);
  const definition = primedDefinitionOf(groupedTemplate(specs), owned, {
    compositionId: COMPOSITION,
    name: 'prop',
    revisionId: idAt('e', 1),
  });
  const info = templates.read(definition.serviceTemplate);
  const body = specs.map((spec, index) => ({
    id: elementId(index),
    definition: { name: elementName(index), version: '1.0.0' },
    description: null,
    properties: {},
    ...(spec.count === null ? {} : { count: spec.count }),
  }));
  const expanded = expandGroups(body, info.elements, memberIdOf);
  expect(expanded.problems).toEqual([]);
  const instance = instanceOf(
    COMPOSITION,
    expanded.elements.map((element) => ({
      ...undeployedElementOf(element.id, owned[templateIndexOf(element.id)]!, element.properties),
      description: element.description,
    })),
    { instanceId: INSTANCE, name: 'PropInstance', lastMsg: STARTED_AT, revisionId: idAt('e', 2) },
  );
  expect(Object.keys(instance.elements)).toHaveLength(specs.reduce((sum, spec) => sum + (spec.count ?? 1), 0));
  await unitOfWork.transaction(async (store) => {
    await store.definitions.insert(definition);
    await store.instances.insert(instance);
  });
  const current = async (): Promise<AutomationComposition> =>
    (await unitOfWork.read((store) => store.instances.find(INSTANCE)))!.value;

  let log: Dispatch[] = [];
  let removed: ReadonlySet<string> = new Set();
  let updating = false;
  const pending: Array<{ order: string; messageId: string; participantId: string; entry: Dispatch }> = [];
  const answeredBefore = (order: string, id: string): boolean =>
    log.some((entry) => entry.order === order && entry.id === id && entry.answered);

  /** Takes the queued messages as participants would, checking each dispatch against the state it left in. */
  const deliver = async (): Promise<void> => {
    const queued = unitOfWork.queuedOutbox();
    await unitOfWork.deleteOutbox(queued.map((record) => record.id));
    const state = await current();
    const reached = (id: string): boolean => state.elements[id]?.deployState === 'DEPLOYED';
    for (const record of queued) {
      const message = replaceWorkOf(record.value);
      if (message === undefined) {
        continue;
      }
      expect(record.value).not.toMatch(/get_attribute|get_property/);
      for (const dto of message.dtos) {
        for (const elementDto of dto.elementDtos) {
          const id = elementDto.instanceElementTarget?.elementId ?? '';
          const index = templateIndexOf(id);
          const spec = specs[index]!;
          if (message.order !== 'UPDATE' && spec.phase !== message.phase) {
            continue;
          }
          if (message.order === 'DEPLOY') {
            // Every element of an earlier phase, and every member of what it depends on or references, is deployed.
            for (const other of Object.values(state.elements)) {
              const otherIndex = templateIndexOf(other.id);
              if (specs[otherIndex]!.phase < spec.phase || edgesOf(spec).includes(otherIndex)) {
                expect(reached(other.id)).toBe(true);
              }
            }
            // No member is added before every removed one has left.
            for (const gone of removed) {
              expect(answeredBefore('DELETE', gone)).toBe(true);
            }
            const inProperties = elementDto.compositionElement?.inProperties ?? {};
            if (spec.references.length > 0) {
              expect((inProperties['configurationEntities'] as JsonObject)['refs']).toEqual(
                groupedValuesOf(specs, spec),
              );
            }
            if (spec.count !== null) {
              // A member gets the node template's value with its own index and the count it was created with.
              const count = updating ? spec.nextCount : spec.count;
              expect(deployedProperties(record.value, id)?.['member']).toBe(`m-${memberIndexOfId(id)}-of-${count}`);
            }
          } else if (message.order === 'UNDEPLOY' || message.order === 'DELETE') {
            expect(removed.has(id)).toBe(true);
            if (message.order === 'DELETE') {
              for (const gone of removed) {
                expect(answeredBefore('UNDEPLOY', gone)).toBe(true);
              }
            }
            // From the highest index down, after what depends on it and what is in a later phase.
            for (const gone of removed) {
              const goneIndex = templateIndexOf(gone);
              const goneSpec = specs[goneIndex]!;
              const above = goneIndex === index && memberIndexOfId(gone) > memberIndexOfId(id);
              if (above || goneSpec.phase > spec.phase || edgesOf(goneSpec).includes(index)) {
                expect(answeredBefore(message.order, gone)).toBe(true);
              }
            }
          }
          const entry: Dispatch = { order: message.order, id, answered: false };
          log.push(entry);
          pending.push({ order: message.order, messageId: message.messageId, participantId: dto.participantId, entry });
        }
      }
    }
  };

  /** Answers every message in a random order, some twice, until nothing is in flight. */
  const answerAll = async (): Promise<void> => {
    const acks: AutomationCompositionDeployAck[] = [];
    await deliver();
    while (pending.length > 0) {
      clock.advance(1 + Math.floor(next() * 500));
      if (next() < 0.15 && acks.length > 0) {
        await engine.applyInstanceAck(acks[Math.floor(next() * acks.length)]!);
      } else {
        const [work] = pending.splice(Math.floor(next() * pending.length), 1);
        const reachedState =
          work!.order === 'DEPLOY'
            ? { deployState: 'DEPLOYED' as const, lockState: 'LOCKED' as const }
            : {
                deployState: work!.order === 'DELETE' ? ('DELETED' as const) : ('UNDEPLOYED' as const),
                lockState: 'NONE' as const,
              };
        const ack: AutomationCompositionDeployAck = {
          messageType:
            work!.order === 'DEPLOY' ? 'AUTOMATION_COMPOSITION_DEPLOY_ACK' : 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
          responseTo: work!.messageId,
          automationCompositionId: INSTANCE,
          participantId: work!.participantId,
          stateChangeResult: 'NO_ERROR',
          automationCompositionResultMap: {
            [work!.entry.id]: {
              ...reachedState,
              result: true,
              ...(work!.order === 'DEPLOY' ? { outProperties: { url: urlOf(work!.entry.id) } } : {}),
            },
          },
        };
        work!.entry.answered = true;
        acks.push(ack);
        await engine.applyInstanceAck(ack);
      }
      await deliver();
    }
  };

  /** The plan's steps are what participants received and what the history recorded as dispatched. */
  const expectPlanFollowed = async (plan: OrderPlan, order: InstanceOrder): Promise<void> => {
    const planned = plan.steps
      .flatMap((step) =>
        step.elements.map((element) => `${replaceStepOf(step.phase)?.order ?? order} ${element.elementId}`),
      )
      .sort();
    expect(log.map((entry) => `${entry.order} ${entry.id}`).sort()).toEqual(planned);
    const events = await unitOfWork.read((store) => store.events.list(INSTANCE, 100_000));
    const ordered = events.filter((event) => event.event === 'ORDERED' && event.detail['order'] === order).at(-1)!;
    const mine = events.filter((event) => event.operationId === ordered.operationId);
    const recorded = mine
      .filter((event) => event.event === 'PHASE_STARTED' || event.event === 'ELEMENTS_DISPATCHED')
      .flatMap((event) => (event.detail['elementIds'] as string[]).map((id) => `${event.detail['phase']} ${id}`));
    expect(recorded.sort()).toEqual(
      plan.steps.flatMap((step) => step.elements.map((element) => `${step.phase} ${element.elementId}`)).sort(),
    );
    // In the history too, each step's element went after what the plan says it waits for had its result (in that step).
    const at = (kind: string, phase: number, id: string): number =>
      mine.findIndex((event) => {
        const detail = event.detail as Record<string, unknown>;
        return (
          event.event === kind &&
          detail['phase'] === phase &&
          (kind === 'ELEMENT_RESULT' ? detail['elementId'] === id : (detail['elementIds'] as string[]).includes(id))
        );
      });
    for (const step of plan.steps) {
      for (const element of step.elements) {
        const sent = Math.max(
          at('PHASE_STARTED', step.phase, element.elementId),
          at('ELEMENTS_DISPATCHED', step.phase, element.elementId),
        );
        expect(sent).toBeGreaterThanOrEqual(0);
        for (const awaited of element.waitsFor) {
          // What it waits for answered in its own step of this plan (the same step, in a replacing UPDATE).
          const phases = plan.steps
            .filter((other) => other.elements.some((candidate) => candidate.elementId === awaited))
            .map((other) => other.phase);
          const phase = phases.includes(step.phase) ? step.phase : phases[0];
          if (phase !== undefined) {
            const result = at('ELEMENT_RESULT', phase, awaited);
            expect(result).toBeGreaterThanOrEqual(0);
            expect(result).toBeLessThan(sent);
          }
        }
      }
    }
    if (order === 'DEPLOY') {
      // The plan's own graph: a member waits for every member of each node template it depends on or references.
      for (const element of plan.steps.flatMap((step) => step.elements)) {
        const edges = edgesOf(specs[templateIndexOf(element.elementId)]!);
        const expected = log.map((entry) => entry.id).filter((id) => edges.includes(templateIndexOf(id)));
        expect([...element.waitsFor].sort()).toEqual(expected.sort());
      }
    }
  };

  // DEPLOY: every member once, each after what it waits for.
  const deployPlan = planInstanceOrder({ order: 'DEPLOY', instance, templates: info.elements });
  await inSession(unitOfWork, async (session, store) => {
    const found = await store.instances.findForUpdate(INSTANCE);
    await engine.startInstanceOrder(session, found!, definition, 'DEPLOY');
  });
  await answerAll();
  await expectPlanFollowed(deployPlan, 'DEPLOY');
  expect(log.every((entry) => entry.order === 'DEPLOY')).toBe(true);
  const deployed = await current();
  expect(deployed).toMatchObject({ deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });

  // UPDATE: every group to its next count, as InstantiationService builds a count change.
  const added: Record<string, AutomationComposition['elements'][string]> = {};
  const leaving: string[] = [];
  const kept: Record<string, JsonObject> = {};
  for (const [index, spec] of specs.entries()) {
    if (spec.count === null) {
      continue;
    }
    const template = info.elements.find((element) => element.name === elementName(index))!;
    const resize = resizeGroup(deployed.elements, template, spec.nextCount, memberIdOf);
    // The highest indexes leave, highest first.
    expect(resize.removed.map(memberIndexOfId)).toEqual(
      Array.from({ length: Math.max(0, spec.count - spec.nextCount) }, (_, k) => spec.count! - 1 - k),
    );
    leaving.push(...resize.removed);
    for (const member of resize.added) {
      added[member.id] = member;
    }
    for (const member of groupMembers({ ...deployed.elements, ...added }, template.name)) {
      if (!resize.removed.includes(member.id)) {
        kept[member.id] = member.properties;
      }
    }
  }
  if (Object.keys(added).length === 0 && leaving.length === 0) {
    return;
  }
  removed = new Set(leaving);
  updating = true;
  log = [];
  const replace: ReplaceUpdate = {
    next: kept,
    removeOrphans: false,
    ...(leaving.length > 0 ? { orphaned: leaving } : {}),
  };
  const start: AutomationComposition = { ...deployed, elements: { ...deployed.elements, ...added } };
  const updatePlan = planInstanceOrder({ order: 'UPDATE', instance: start, templates: info.elements, replace });
  await inSession(unitOfWork, async (session, store) => {
    const found = await store.instances.findForUpdate(INSTANCE);
    await engine.startInstanceOrder(session, { ...found!, value: start }, definition, 'UPDATE', { replace });
  });
  await answerAll();
  await expectPlanFollowed(updatePlan, 'UPDATE');
  // The removed members undeployed then deleted, the new ones deployed, nothing else sent.
  const expected = [
    ...leaving.flatMap((id) => [`UNDEPLOY ${id}`, `DELETE ${id}`]),
    ...Object.keys(added).map((id) => `DEPLOY ${id}`),
  ].sort();
  expect(log.map((entry) => `${entry.order} ${entry.id}`).sort()).toEqual(expected);
  const after = await current();
  expect(after).toMatchObject({ deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });
  expect(Object.keys(after.elements).sort()).toEqual(
    specs
      .flatMap((spec, index) =>
        Array.from({ length: spec.count === null ? 1 : spec.nextCount }, (_, k) =>
          k === 0 ? elementId(index) : memberIdOf(elementId(index), k),
        ),
      )
      .sort(),
  );
  expect(Object.values(after.elements).every((element) => element.deployState === 'DEPLOYED')).toBe(true);
}

describe('dependency and reference ordering, property-based (fast-check, in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('dispatches every element once, when its phase is open and what it waits for (dependsOn, requirements, references) is done, with references as plain values, within maxParallelElements, as the plan allows', async () => {
    await fc.assert(
      fc.asyncProperty(
        compositionArbitrary,
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
        fc.integer(),
        async (specs, limit, seed) => {
          await run(specs, limit, seed);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps at most MAX_PARALLEL_ELEMENTS in flight across many instances, oldest operation first, all deployed', async () => {
    await fc.assert(
      fc.asyncProperty(
        compositionArbitrary,
        fc.array(fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer(),
        async (specs, copies, runtimeLimit, seed) => {
          await runMany(specs, copies, runtimeLimit, seed);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('replaces every element whose non-updatable property changes: destroys in reverse order, creates in forward order, then updates in place', async () => {
    await fc.assert(
      fc.asyncProperty(
        compositionArbitrary,
        fc.array(fc.constantFrom<UpdateKind>('KEEP', 'IN_PLACE', 'ZONE'), { minLength: 1, maxLength: 30 }),
        fc.integer(),
        async (specs, kinds, seed) => {
          // The elements start DEPLOYED without outProperties, so a reference would fail its reader at dispatch
          // (the reference property covers that rule); here the edges come from dependsOn and requirements.
          await runReplace(
            specs.map((spec) => ({ ...spec, references: [] })),
            kinds,
            seed,
          );
        },
      ),
      { numRuns: 40 },
    );
  });
  it('expands groups as the runtime does: no member before every member of what it waits for, a lower count removes the highest indexes in reverse order, a higher one adds members in graph order, as the plan says', async () => {
    await fc.assert(
      fc.asyncProperty(groupedCompositionArbitrary, fc.integer(), async (specs, seed) => {
        await runGroups(specs, seed);
      }),
      { numRuns: 30 },
    );
  });
});
