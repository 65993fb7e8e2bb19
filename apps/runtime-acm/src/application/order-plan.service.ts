import type { CompositionDefinition, InstanceDiff, InstanceElement, UpdateClassification } from '@acm/domain';
import { UnitOfWork, asReference, diffInstance } from '@acm/domain';
import { Injectable } from '@nestjs/common';
import { SensitiveValues } from '../security/sensitive-values';
import { InstantiationService, digestInputOf } from './instantiation.service';
import type { InstanceRequest, PreparedUpdate } from './instantiation.service';
import { definitionNotFound } from './not-found';
import { planIdOf, sensitiveNamesIn } from './plan-digest';
import type { InstancePlan, PlannedOrder } from './plan.service';
import { PlanService } from './plan.service';

/** A plan with its diff: the steps of `InstancePlan`, each element's change, and the id an order may carry. */
export interface InstanceDiffPlan extends InstancePlan, InstanceDiff {
  /** Send it as `?planId=` with the order: refused (409) if the instance, its definitions or the body changed. */
  readonly planId: string;
}

/** The elements an order leaves: an UPDATE's orphans (`removeOrphans`) are deleted, the rest as prepared. */
function nextElementsOf(prepared: PreparedUpdate): Readonly<Record<string, InstanceElement>> {
  const orphans = new Set(prepared.classification?.orphans ?? []);
  if (orphans.size === 0) {
    return prepared.elements;
  }
  return Object.fromEntries(Object.entries(prepared.elements).filter(([id]) => !orphans.has(id)));
}

/**
 * `POST .../plan` (beyond ONAP). Unlike the read-only plan pages it reads the Store (still writing nothing): an
 * update's own checks ask it whether names and element ids are free.
 */
@Injectable()
export class OrderPlanService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly plans: PlanService,
    private readonly instantiation: InstantiationService,
    private readonly sensitive: SensitiveValues,
  ) {}

  /**
   * `POST .../plan` (beyond ONAP): the order with its body checked as the order checks it, what it would change in
   * each element (`tofu plan`), its steps as `PlanService.ofInstance` answers them, and the planId an order may carry to start only
   * if nothing changed since.
   */
  ofOrder(
    compositionId: string,
    instanceId: string,
    order: PlannedOrder,
    body: (InstanceRequest & { instanceId: string }) | null,
  ): Promise<InstanceDiffPlan> {
    return this.unitOfWork.read(async (store) => {
      if (body !== null) {
        const { current, prepared } = await this.instantiation.planUpdate(store, compositionId, body);
        const steps = await this.plans.stepsOf(
          store,
          current,
          order,
          prepared.target === undefined
            ? null
            : { compositionTargetId: prepared.target.compositionId, planned: prepared.elements },
          { ...current, elements: prepared.elements },
          prepared.replace,
        );
        const definitions = prepared.target === undefined ? [prepared.source] : [prepared.source, prepared.target];
        return {
          ...steps,
          planId: planIdOf(digestInputOf(current, prepared, body)),
          ...this.diff(current.elements, nextElementsOf(prepared), definitions, prepared.classification),
        };
      }
      const instance = await this.plans.matchingInstance(store, compositionId, instanceId);
      const steps = await this.plans.stepsOf(store, instance, order, null);
      const definition = await store.definitions.find(instance.compositionId);
      if (!definition) {
        throw definitionNotFound(instance.compositionId);
      }
      return {
        ...steps,
        planId: planIdOf({ instance, definitions: [definition.value], order, body: null }),
        ...this.diff(instance.elements, order === 'DELETE' ? {} : instance.elements, [definition.value]),
      };
    });
  }

  /** Each element's change, sensitive values compared in clear and shown masked. */
  private diff(
    current: Readonly<Record<string, InstanceElement>>,
    next: Readonly<Record<string, InstanceElement>>,
    definitions: readonly CompositionDefinition[],
    classification?: UpdateClassification,
  ): InstanceDiff {
    const names = (elementId: string): ReadonlySet<string> =>
      new Set(
        [current[elementId]?.definition.name, next[elementId]?.definition.name].flatMap((name) =>
          name === undefined ? [] : [...sensitiveNamesIn(definitions, name)],
        ),
      );
    return diffInstance({
      current: this.sensitive.inClearForComparison(current),
      next: this.sensitive.inClearForComparison(next),
      sensitiveNames: names,
      // A reference's value is read when its element is dispatched.
      isKnownAfterDeploy: (_elementId, _path, value) => asReference(value) !== null,
      replacementForcedBy: (elementId) =>
        classification?.changes.find((change) => change.elementId === elementId && change.kind === 'REPLACE')
          ?.forcedBy ?? [],
    });
  }
}
