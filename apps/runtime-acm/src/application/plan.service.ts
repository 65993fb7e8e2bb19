import type {
  AutomationComposition,
  CompositionDefinition,
  DefinitionOrder,
  InstanceOrder,
  MigrationRequestElement,
  OrderPlan,
  ReadModel,
  ReplaceUpdate,
} from '@acm/domain';
import {
  DomainError,
  ReadModels,
  checkOrderMayStart,
  parallelismLimit,
  planInstanceOrder,
  planMigration,
} from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { CommissioningService } from './commissioning.service';
import { definitionNotFound, instanceNotFound } from './not-found';
import { primedDefinition } from './primed-definition';
import { TemplateReader } from '../engine/template-reader';

/** The orders a plan can be asked for: everything an instance accepts except the two rollbacks. */
export const PLANNED_ORDERS = [
  'DEPLOY',
  'UNDEPLOY',
  'LOCK',
  'UNLOCK',
  'DELETE',
  'UPDATE',
  'MIGRATE',
  'MIGRATE_PRECHECK',
  'PREPARE',
  'REVIEW',
] as const satisfies readonly InstanceOrder[];
export type PlannedOrder = (typeof PLANNED_ORDERS)[number];

/** Orders planned against a target composition (`compositionTargetId`). */
export const TARGETED_ORDERS: ReadonlySet<PlannedOrder> = new Set(['MIGRATE', 'MIGRATE_PRECHECK']);

/** An element a migration would add has no id until the migrate body gives it one. */
const NEW_ELEMENT_PREFIX = 'new:';

/** A prime or deprime: one message, to every participant of the definition's elements. */
export interface DefinitionPlan {
  readonly compositionId: string;
  readonly order: DefinitionOrder;
  readonly steps: ReadonlyArray<{
    readonly step: number;
    readonly kind: DefinitionOrder;
    readonly elements: ReadonlyArray<{
      readonly name: string;
      readonly version: string;
      readonly participantId: string;
    }>;
    readonly participants: readonly string[];
  }>;
}

export interface InstancePlan extends OrderPlan {
  readonly compositionId: string;
  readonly instanceId: string;
  readonly compositionTargetId?: string;
  /** False when the order runs no operation (an update of an UNDEPLOYED instance only replaces its elements). */
  readonly runsOperation: boolean;
}

/** Plan before apply (OpenTofu's `plan`): what an order would send, in order, without starting it. */
@Injectable()
export class PlanService {
  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly reads: ReadModels,
    private readonly templates: TemplateReader,
    private readonly commissioning: CommissioningService,
  ) {}

  /** PRIME or DEPRIME: the participants the one message goes to, after the checks the order itself runs. */
  ofDefinition(compositionId: string, primeOrder: DefinitionOrder): Promise<DefinitionPlan> {
    return this.reads.read(async (store) => {
      const found = await store.definitions.find(compositionId);
      if (!found) {
        throw definitionNotFound(compositionId);
      }
      const { order, assignment } = await this.commissioning.checkOrder(store, found.value, primeOrder);
      const elements = this.templates.readDefinition(found.value).elements.map((element) => ({
        name: element.name,
        version: element.version,
        participantId: assignment.get(element.name) ?? '',
      }));
      const participants = [...new Set(elements.map((element) => element.participantId))];
      return { compositionId, order, steps: [{ step: 1, kind: order, elements, participants }] };
    });
  }

  ofInstance(
    compositionId: string,
    instanceId: string,
    order: PlannedOrder,
    compositionTargetId?: string,
  ): Promise<InstancePlan> {
    return this.reads.read(async (store) => {
      const instance = await this.matchingInstance(store, compositionId, instanceId);
      return this.stepsOf(store, instance, order, compositionTargetId === undefined ? null : { compositionTargetId });
    });
  }

  /** The instance, refused when missing or when the path names neither its composition nor its target. */
  async matchingInstance(store: ReadModel, compositionId: string, instanceId: string): Promise<AutomationComposition> {
    const found = await store.instances.find(instanceId);
    if (!found) {
      throw instanceNotFound(instanceId);
    }
    const instance = found.value;
    if (instance.compositionId !== compositionId && instance.compositionTargetId !== compositionId) {
      throw new DomainError('ID_MISMATCH', `${instance.compositionId} do not match with ${compositionId}`, {
        instanceId,
      });
    }
    return instance;
  }

  /**
   * The steps of `order` on `instance`, after the checks the order's request runs. A migration's planned elements are
   * the body's when it has one, else the ones `migrated` supposes; `planned` is the instance an update would start
   * with (its elements carry the new properties).
   */
  async stepsOf(
    store: ReadModel,
    instance: AutomationComposition,
    order: PlannedOrder,
    migration: { compositionTargetId: string; planned?: AutomationComposition['elements'] } | null,
    planned: AutomationComposition = instance,
    replace?: ReplaceUpdate,
  ): Promise<InstancePlan> {
    const instanceId = instance.instanceId;
    const compositionTargetId = migration?.compositionTargetId;
    const runsOperation = checkOrderMayStart(order, instance);
    const definition = await store.definitions.find(instance.compositionId);
    if (!definition) {
      throw definitionNotFound(instance.compositionId);
    }
    const info = this.templates.readDefinition(definition.value);
    // The engine's limit for this operation: the instance's, else the definition's, capped by the runtime's.
    const maxParallelElements = parallelismLimit(instance.metadata, info.metadata, this.config.maxParallelElements);
    const header = {
      compositionId: instance.compositionId,
      instanceId,
      ...(compositionTargetId === undefined ? {} : { compositionTargetId }),
      runsOperation,
    };
    if (!runsOperation) {
      return { ...header, order, walk: 'single', target: null, maxParallelElements: null, steps: [] };
    }
    if (compositionTargetId !== undefined) {
      const target = await primedDefinition(store, compositionTargetId);
      const targetInfo = this.templates.readDefinition(target);
      const elements = migration?.planned ?? this.migrated(instance, target, targetInfo);
      // A precheck only asks: its single message describes the planned elements, the instance keeps its own.
      const plan = planInstanceOrder({
        order,
        instance: { ...instance, elements },
        templates: info.elements,
        otherTemplates: targetInfo.elements,
        maxParallelElements,
      });
      return { ...header, ...plan };
    }
    const migrationLeft = instance.compositionTargetId;
    const other = migrationLeft === null ? null : await store.definitions.find(migrationLeft);
    return {
      ...header,
      ...planInstanceOrder({
        order,
        // A replacing UPDATE starts from the elements as they are, as the order does: the machine gives each its new
        // properties in the step that sends them.
        instance: replace === undefined ? planned : instance,
        templates: info.elements,
        maxParallelElements,
        ...(replace === undefined ? {} : { replace }),
        ...(other ? { otherTemplates: this.templates.readDefinition(other.value).elements } : {}),
      }),
    };
  }

  /**
   * The elements a migration to `target` would produce when the migrate body keeps every element the target still
   * lists (by node template name, at the target's version) and adds the ones it lists on top.
   */
  private migrated(
    instance: AutomationComposition,
    target: CompositionDefinition,
    info: CompositionTemplateInfo,
  ): AutomationComposition['elements'] {
    const current = Object.values(instance.elements);
    const requested: MigrationRequestElement[] = info.listedElements.map((listed) => {
      const kept = current.find((element) => element.definition.name === listed.name);
      return {
        id: kept?.id ?? `${NEW_ELEMENT_PREFIX}${listed.name}`,
        definition: listed,
        description: kept?.description ?? null,
        properties: {},
      };
    });
    return planMigration(instance.elements, requested, {
      listedElements: info.listedElements,
      participantOf: (name) => target.elementStateMap[name]?.participantId ?? null,
    });
  }
}
