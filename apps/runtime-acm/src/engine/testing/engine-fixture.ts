import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { AutomationCompositionDeployAck, ParticipantMessage } from '@acm/contracts';
import { decodeMessage } from '@acm/contracts';
import { Clock, IdGenerator } from '@acm/domain';
import type { UnitOfWork } from '@acm/domain';
import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  InstanceOrder,
  JsonObject,
  StoredEvent,
} from '@acm/domain';
import { InMemoryUnitOfWork } from '@acm/persistence/testing';
import { parseServiceTemplate } from '@acm/tosca';

import { loadRuntimeConfig } from '../../config/runtime.config';
import type { RuntimeConfig } from '../../config/runtime.config';
import { RuntimeMetrics } from '../../metrics/runtime-metrics';
import { EffectWriter } from '../effect-writer';
import { EngineMetrics } from '../engine-metrics';
import { OperationControl } from '../operation-control';
import { OperationEngine } from '../operation-engine';
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

let counter = 0;
function uuid(prefix: string): string {
  counter += 1;
  return `${prefix}0000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
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
  readonly control: OperationControl;
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
  return {
    engine: new OperationEngine(unitOfWork, templates, clock, steps, writer),
    supervisor: new OperationSupervisor(unitOfWork, clock, steps),
    control: new OperationControl(templates, clock, steps, writer),
    slots: new ParallelSlots(config, unitOfWork, steps, new CommitNudge()),
  };
}

/** The engine that applies orders and answers, wired as the runtime module wires it. */
export function engineOn(
  config: RuntimeConfig,
  unitOfWork: UnitOfWork,
  templates: TemplateReader,
  clock: Clock,
  ids: IdGenerator,
): OperationEngine {
  return engineShellsOn(config, unitOfWork, templates, clock, ids).engine;
}

/** An engine on the in-memory store with a fake clock, and the definitions and instances of a test. */
export class EngineFixture {
  readonly config;
  readonly clock = new FakeClock(STARTED_AT);
  readonly unitOfWork = new InMemoryUnitOfWork();
  readonly templates;
  readonly engine: OperationEngine;
  readonly supervisor: OperationSupervisor;
  readonly control: OperationControl;

  constructor(env: Record<string, string> = {}) {
    this.config = loadRuntimeConfig({ LOG_LEVEL: 'error', ...env });
    this.templates = new TemplateReader(this.config);
    const shells = engineShellsOn(this.config, this.unitOfWork, this.templates, this.clock, new CountingIds());
    this.engine = shells.engine;
    this.supervisor = shells.supervisor;
    this.control = shells.control;
  }

  /** Stores a primed definition read from a repository example, each element owned by `participantOf(name)`. */
  async definition(
    examplePath: string,
    participantOf: (name: string) => string,
    metadata: JsonObject = {},
  ): Promise<CompositionDefinition> {
    const parsed = parseServiceTemplate(readFileSync(join(REPO_ROOT, examplePath), 'utf8'));
    if (!parsed.ok) {
      throw new Error(`${examplePath} does not parse: ${JSON.stringify(parsed.problems)}`);
    }
    const template = {
      ...parsed.template,
      metadata: { ...(parsed.template['metadata'] ?? {}), ...metadata },
    };
    const info = this.templates.read(template);
    const definition: CompositionDefinition = {
      compositionId: uuid('c'),
      name: String(template['name'] ?? 'example'),
      version: String(template['version'] ?? '1.0.0'),
      serviceTemplate: template,
      state: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
      lastMsg: STARTED_AT,
      elementStateMap: Object.fromEntries(
        info.elements.map((element) => [
          element.name,
          {
            nodeTemplateStateId: uuid('d'),
            participantId: participantOf(element.name),
            nodeTemplateId: { name: element.name, version: element.version },
            state: 'PRIMED' as const,
            message: null,
            outProperties: {},
          },
        ]),
      ),
      revisionId: uuid('e'),
    };
    await this.unitOfWork.transaction((store) => store.definitions.insert(definition));
    return definition;
  }

  /** Stores an UNDEPLOYED instance with one element per element node template of the definition. */
  async instance(
    definition: CompositionDefinition,
    options: { metadata?: JsonObject; properties?: JsonObject; copies?: number } = {},
  ): Promise<AutomationComposition> {
    const info = this.templates.readDefinition(definition);
    const elements: InstanceElement[] = info.elements.flatMap((template) =>
      Array.from({ length: options.copies ?? 1 }, () => ({
        id: uuid('b'),
        definition: { name: template.name, version: template.version },
        participantId: definition.elementStateMap[template.name]!.participantId,
        deployState: 'UNDEPLOYED' as const,
        lockState: 'NONE' as const,
        subState: 'NONE' as const,
        migrationState: 'DEFAULT' as const,
        stage: null,
        operationalState: null,
        useState: null,
        description: null,
        message: null,
        properties: options.properties ?? {},
        outProperties: {},
      })),
    );
    const instance: AutomationComposition = {
      instanceId: uuid('a'),
      compositionId: definition.compositionId,
      compositionTargetId: null,
      name: `instance-${counter}`,
      version: '1.0.0',
      description: null,
      derivedFrom: null,
      metadata: options.metadata ?? null,
      precheck: null,
      deployState: 'UNDEPLOYED',
      lockState: 'NONE',
      subState: 'NONE',
      stateChangeResult: 'NO_ERROR',
      phase: null,
      lastMsg: STARTED_AT,
      revisionId: uuid('e'),
      elements: Object.fromEntries(elements.map((element) => [element.id, element])),
    };
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
    await this.unitOfWork.transaction(async (store) => {
      const found = (await store.instances.findForUpdate(instanceId))!;
      const definition = (await store.definitions.find(found.value.compositionId))!;
      await this.engine.startInstanceOrder(
        store,
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
