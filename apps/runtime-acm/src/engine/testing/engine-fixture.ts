import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { AutomationCompositionDeployAck, ParticipantMessage } from '@acm/contracts';
import { decodeMessage } from '@acm/contracts';
import { Clock, IdGenerator } from '@acm/domain';
import type { OperationSession, Store, UnitOfWork } from '@acm/domain';
import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  InstanceOrder,
  JsonObject,
  StoredEvent,
} from '@acm/domain';
import { BufferedSessions } from '@acm/persistence';
import { InMemoryUnitOfWork, definitionOf, elementOf, instanceOf } from '@acm/persistence/testing';
import { parseServiceTemplate } from '@acm/tosca';
import type { ServiceTemplate } from '@acm/tosca';

import { loadRuntimeConfig } from '../../config/runtime.config';
import type { RuntimeConfig } from '../../config/runtime.config';
import { RuntimeMetrics } from '../../metrics/runtime-metrics';
import { EffectWriter } from '../effect-writer';
import { EngineMetrics } from '../engine-metrics';
import { OperationInterventions } from '../operation-interventions';
import { OperationEngine, orderKeys } from '../operation-engine';
import { OperationSupervisor } from '../operation-supervisor';
import { OperationSteps } from '../operation-steps';
import { CommitNudge, ParallelSlots } from '../parallel-slots';
import type { OrderExtras } from '../operation-engine';
import { TemplateReader } from '../template-reader';

/** Time only moves when the test says so. */
export class FakeClock extends Clock {
  constructor(private current: number) {
    super();
  }

  override now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** Predictable UUIDs: 00000000-0000-4000-8000-000000000001, ...2, ... */
export class CountingIds extends IdGenerator {
  private next = 1;

  override uuid(): string {
    return `00000000-0000-4000-8000-${String(this.next++).padStart(12, '0')}`;
  }
}

export const STARTED_AT = 1_764_000_000_000;
const REPO_ROOT = join(__dirname, '..', '..', '..', '..', '..');

/** Ids by position, for specs that name records by index: `idAt('b', 2)` is b0000000-0000-4000-8000-000000000002. */
export function idAt(prefix: string, index: number): string {
  return `${prefix}0000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
}

let counter = 0;
function uuid(prefix: string): string {
  counter += 1;
  return idAt(prefix, counter);
}

/** A repository example's service template; one that does not parse fails the spec that reads it. */
export function exampleTemplate(examplePath: string): ServiceTemplate {
  const parsed = parseServiceTemplate(readFileSync(join(REPO_ROOT, examplePath), 'utf8'));
  if (!parsed.ok) {
    throw new Error(`${examplePath} does not parse: ${JSON.stringify(parsed.problems)}`);
  }
  return parsed.template;
}

/** An element node template of a definition, and the participant that owns it. */
export interface OwnedElement {
  readonly name: string;
  readonly version: string;
  readonly participantId: string | null;
}

/**
 * A PRIMED definition with a primed state for each element. The states are numbered by position unless `stateIdOf`
 * says otherwise, so a spec that names nothing still gets the same ids on every run.
 */
export function primedDefinitionOf(
  serviceTemplate: JsonObject,
  elements: readonly OwnedElement[],
  overrides: Partial<CompositionDefinition> = {},
  stateIdOf: (index: number) => string = (index) => idAt('d', index),
): CompositionDefinition {
  return definitionOf({
    serviceTemplate,
    state: 'PRIMED',
    lastMsg: STARTED_AT,
    elementStateMap: Object.fromEntries(
      elements.map((element, index) => [
        element.name,
        {
          nodeTemplateStateId: stateIdOf(index),
          participantId: element.participantId,
          nodeTemplateId: { name: element.name, version: element.version },
          state: 'PRIMED' as const,
          message: null,
          outProperties: {},
        },
      ]),
    ),
    ...overrides,
  });
}

/** An UNDEPLOYED element of `owned`; engine specs give it no properties unless they are about them. */
export function undeployedElementOf(id: string, owned: OwnedElement, properties: JsonObject = {}): InstanceElement {
  return elementOf(owned.participantId, {
    id,
    definition: { name: owned.name, version: owned.version },
    properties,
  });
}

/** The participant that owns every element of the three-phase example as `storeThreePhase` stores it. */
export const THREE_PHASE_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c03';

/** The stored three-phase example: six elements, start phases 0, 0, 1, 1, 2, 2, on one participant. */
export interface ThreePhase {
  readonly definition: CompositionDefinition;
  readonly instance: AutomationComposition;
  /** In the definition's element order. */
  readonly elements: readonly InstanceElement[];
  /** Each element's start phase as its node template writes it, not as the engine reads it. */
  readonly phaseOf: ReadonlyMap<string, number>;
}

/**
 * Stores the three-phase example with ids by position, for the specs that drive the engine by hand and name its
 * messages by id. `metadata`, when given, is the definition's metadata in place of the example's.
 */
export async function storeThreePhase(
  unitOfWork: UnitOfWork,
  templates: TemplateReader,
  options: { metadata?: JsonObject; elementProperties?: JsonObject } = {},
): Promise<ThreePhase> {
  const example = exampleTemplate('tosca/examples/sim-three-phase.yaml');
  const template = options.metadata === undefined ? example : { ...example, metadata: options.metadata };
  const nodeTemplates = (
    template.topology_template as {
      node_templates: Record<string, { version: string; properties?: { startPhase?: number } }>;
    }
  ).node_templates;
  const owned = templates.read(template).elements.map((element) => ({
    name: element.name,
    version: nodeTemplates[element.name]!.version,
    participantId: THREE_PHASE_PARTICIPANT,
  }));
  const definition = primedDefinitionOf(template, owned, {
    compositionId: idAt('c', 1),
    name: 'sim-three-phase',
    revisionId: idAt('e', 1),
  });
  const elements = owned.map((element, index) =>
    undeployedElementOf(idAt('b', index), element, options.elementProperties),
  );
  const instance = instanceOf(definition.compositionId, elements, {
    instanceId: idAt('a', 1),
    name: 'SimThreePhaseInstance',
    lastMsg: STARTED_AT,
    revisionId: idAt('e', 2),
  });
  await unitOfWork.transaction(async (store) => {
    await store.definitions.insert(definition);
    await store.instances.insert(instance);
  });
  const phaseOf = new Map(
    elements.map((element) => [element.id, nodeTemplates[element.definition.name]!.properties?.startPhase ?? 0]),
  );
  return { definition, instance, elements, phaseOf };
}

/** A phase or stage message as the participant receives it, with the element ids it asks to act on. */
export interface SentOrder {
  readonly message: ParticipantMessage & { messageId: string };
  readonly messageType: string;
  readonly phase: number | null;
  /** Element ids described, per participant. */
  readonly described: Record<string, string[]>;
}

function describedOf(message: ParticipantMessage): Record<string, string[]> {
  const dtos = 'participantDtoList' in message ? (message.participantDtoList ?? []) : [];
  return Object.fromEntries(
    dtos.map((dto) => [
      dto.participantId,
      dto.elementDtos.flatMap(
        (element) => element.instanceElement?.elementId ?? element.instanceElementTarget?.elementId ?? [],
      ),
    ]),
  );
}

/** The engine's three shells (answers, supervision, control) on one store, clock and metrics registry. */
export interface EngineShells {
  readonly engine: OperationEngine;
  readonly supervisor: OperationSupervisor;
  readonly control: OperationInterventions;
  /** Fills free runtime-wide slots (MAX_PARALLEL_ELEMENTS); nothing nudges it here, so a test calls `fill()`. */
  readonly slots: ParallelSlots;
}

/** The engine and its collaborators, wired as the runtime module wires them. */
export function engineShellsOn(
  config: RuntimeConfig,
  unitOfWork: UnitOfWork,
  templates: TemplateReader,
  clock: Clock,
  ids: IdGenerator,
  metrics: RuntimeMetrics = new RuntimeMetrics(),
): EngineShells {
  const writer = new EffectWriter(config, ids, new EngineMetrics(metrics));
  const steps = new OperationSteps(config, templates, clock, ids, writer);
  const sessions = new BufferedSessions(unitOfWork);
  return {
    engine: new OperationEngine(sessions, templates, clock, steps, writer),
    supervisor: new OperationSupervisor(sessions, clock, steps),
    control: new OperationInterventions(templates, clock, steps, writer),
    slots: new ParallelSlots(config, sessions, steps, new CommitNudge()),
  };
}

/** An engine on the in-memory store with a fake clock, and the definitions and instances of a test. */
export class EngineFixture {
  readonly config;
  readonly clock = new FakeClock(STARTED_AT);
  readonly unitOfWork = new InMemoryUnitOfWork();
  readonly templates;
  readonly engine: OperationEngine;
  readonly supervisor: OperationSupervisor;
  readonly control: OperationInterventions;
  readonly slots: ParallelSlots;
  readonly metrics = new RuntimeMetrics();

  constructor(env: Record<string, string> = {}) {
    this.config = loadRuntimeConfig({ LOG_LEVEL: 'error', ...env });
    this.templates = new TemplateReader(this.config);
    const shells = engineShellsOn(
      this.config,
      this.unitOfWork,
      this.templates,
      this.clock,
      new CountingIds(),
      this.metrics,
    );
    this.engine = shells.engine;
    this.supervisor = shells.supervisor;
    this.control = shells.control;
    this.slots = shells.slots;
  }

  /** Stores a primed definition read from a repository example, each element owned by `participantOf(name)`. */
  async definition(
    examplePath: string,
    participantOf: (name: string) => string | null,
    metadata: JsonObject = {},
    edit: (template: ServiceTemplate) => ServiceTemplate = (template) => template,
  ): Promise<CompositionDefinition> {
    const example = edit(exampleTemplate(examplePath));
    const template = { ...example, metadata: { ...(example.metadata ?? {}), ...metadata } };
    const info = this.templates.read(template);
    // Drawn in the order they always were, so every id a spec has seen stays the same.
    const compositionId = uuid('c');
    const stateIds = info.elements.map(() => uuid('d'));
    const definition = primedDefinitionOf(
      template,
      info.elements.map((element) => ({
        name: element.name,
        version: element.version,
        participantId: participantOf(element.name),
      })),
      {
        compositionId,
        name: String(template['name'] ?? 'example'),
        version: String(template['version'] ?? '1.0.0'),
        revisionId: uuid('e'),
      },
      (index) => stateIds[index]!,
    );
    await this.unitOfWork.transaction((store) => store.definitions.insert(definition));
    return definition;
  }

  /** Stores an UNDEPLOYED instance with one element per element node template of the definition. */
  async instance(
    definition: CompositionDefinition,
    options: { metadata?: JsonObject; properties?: JsonObject; copies?: number } = {},
  ): Promise<AutomationComposition> {
    const info = this.templates.readDefinition(definition);
    const elements = info.elements.flatMap((template) =>
      Array.from({ length: options.copies ?? 1 }, () =>
        undeployedElementOf(
          uuid('b'),
          {
            name: template.name,
            version: template.version,
            participantId: definition.elementStateMap[template.name]!.participantId,
          },
          options.properties,
        ),
      ),
    );
    const instance = instanceOf(definition.compositionId, elements, {
      instanceId: uuid('a'),
      name: `instance-${counter}`,
      metadata: options.metadata ?? null,
      lastMsg: STARTED_AT,
      revisionId: uuid('e'),
    });
    await this.unitOfWork.transaction((store) => store.instances.insert(instance));
    return instance;
  }

  /** Orders as InstantiationService does: inside a transaction, on the instance as stored (or as given). */
  async order(
    instanceId: string,
    order: InstanceOrder,
    change: (instance: AutomationComposition) => AutomationComposition = (instance) => instance,
    extras: OrderExtras = {},
  ): Promise<void> {
    await new BufferedSessions(this.unitOfWork).transaction(orderKeys(instanceId), async (session) => {
      const found = (await session.lockInstance(instanceId))!;
      const definition = (await session.definition(found.value.compositionId))!;
      await this.engine.startInstanceOrder(
        session,
        { value: change(found.value), version: found.version },
        definition.value,
        order,
        extras,
      );
    });
  }

  /** Every participant message queued since the last call, decoded, in the order they were queued. */
  async take(): Promise<SentOrder[]> {
    const queued = this.unitOfWork.queuedOutbox();
    await this.unitOfWork.deleteOutbox(queued.map((record) => record.id));
    return queued.flatMap((record) => {
      const decoded = decodeMessage(record.value);
      if (!decoded.ok) {
        return [];
      }
      const message = decoded.message as ParticipantMessage & {
        messageId: string;
        startPhase?: number;
        stage?: number;
      };
      return [
        {
          message,
          messageType: message.messageType,
          phase: message.startPhase ?? message.stage ?? null,
          described: describedOf(message),
        },
      ];
    });
  }

  /** A participant's answer to a phase message: every element it describes for that participant reaches `state`. */
  ackOf(
    sent: SentOrder,
    participantId: string,
    reached: { deployState: InstanceElement['deployState']; lockState: InstanceElement['lockState'] },
    options: { failed?: boolean; elementIds?: string[]; replicaId?: string; stage?: number } = {},
  ): AutomationCompositionDeployAck {
    const ids = options.elementIds ?? sent.described[participantId] ?? [];
    return {
      messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      responseTo: sent.message.messageId,
      automationCompositionId: (sent.message as unknown as { automationCompositionId: string }).automationCompositionId,
      participantId,
      ...(options.replicaId ? { replicaId: options.replicaId } : {}),
      ...(options.stage !== undefined ? { stage: options.stage } : {}),
      stateChangeResult: options.failed ? 'FAILED' : 'NO_ERROR',
      ...(options.failed ? { message: 'the participant failed' } : {}),
      automationCompositionResultMap: Object.fromEntries(
        ids.map((id) => [id, { ...reached, result: !options.failed }]),
      ),
    };
  }

  async current(instanceId: string): Promise<AutomationComposition | null> {
    return (await this.unitOfWork.read((store) => store.instances.find(instanceId)))?.value ?? null;
  }

  async events(subjectId: string): Promise<StoredEvent[]> {
    return this.unitOfWork.read((store) => store.events.list(subjectId, 1000));
  }
}

/**
 * Runs `work` in one transaction of `unitOfWork` on an operation session that locks nothing up front, as a caller
 * that locks its target itself would; `store` sees the session's writes.
 */
export function inSession<T>(
  unitOfWork: UnitOfWork,
  work: (session: OperationSession, store: Store) => Promise<T>,
): Promise<T> {
  return new BufferedSessions(unitOfWork).transaction({ instanceIds: [], messageIds: [] }, (session, { store }) =>
    work(session, store),
  );
}
