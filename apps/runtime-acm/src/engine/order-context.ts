import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  InstanceOrder,
  OperationSession,
  OperationTemplates,
  ReplaceUpdate,
} from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import type { CompositionSide } from './participant-messages';
import type { TemplateReader } from './template-reader';

/** What an order's messages need beyond the instance and its own definition. */
export interface OrderContext {
  /** Migration target (MIGRATE, MIGRATE_PRECHECK) or the composition a migration rollback leaves (MIGRATION_REVERT). */
  readonly other?: CompositionSide;
  /** The rollback snapshot: the elements before the update, migration or rollback. */
  readonly before?: Record<string, InstanceElement>;
  /** MIGRATE_PRECHECK only: the elements the migration would produce. */
  readonly planned?: Record<string, InstanceElement>;
}

/** Extra input of orders that carry more than the instance: a precheck's target and planned elements. */
export interface OrderExtras {
  readonly target?: CompositionDefinition;
  readonly planned?: Record<string, InstanceElement>;
  /** An UPDATE that replaces or removes elements: what the machine starts it from (replace-steps.ts). */
  readonly replace?: ReplaceUpdate;
  /** A heal (a DEPLOY of a deployed instance): the only elements deployed again. */
  readonly heal?: readonly string[];
}

/** Loads the snapshot, the other composition and the precheck plan an order's messages need. */
export async function loadOrderContext(
  session: OperationSession,
  templates: TemplateReader,
  instance: AutomationComposition,
  order: InstanceOrder,
  extras: OrderExtras,
): Promise<OrderContext> {
  const sideOf = (definition: CompositionDefinition): CompositionSide => ({
    definition,
    info: templates.readDefinition(definition),
  });
  switch (order) {
    case 'UPDATE':
    case 'UPDATE_REVERT': {
      const snapshot = await session.rollback(instance.instanceId);
      return snapshot ? { before: snapshot.elements } : {};
    }
    case 'MIGRATE':
    case 'MIGRATION_REVERT': {
      const snapshot = await session.rollback(instance.instanceId);
      const stored =
        extras.target === undefined && instance.compositionTargetId !== null
          ? await session.definition(instance.compositionTargetId)
          : null;
      const other = extras.target ? sideOf(extras.target) : stored ? sideOf(stored.value) : undefined;
      return { ...(other ? { other } : {}), ...(snapshot ? { before: snapshot.elements } : {}) };
    }
    case 'MIGRATE_PRECHECK':
      return {
        ...(extras.target ? { other: sideOf(extras.target) } : {}),
        before: instance.elements,
        ...(extras.planned ? { planned: extras.planned } : {}),
      };
    default:
      return {};
  }
}

/** The element templates the domain's operation needs, from the parsed templates of both sides. */
export function templatesOf(info: CompositionTemplateInfo, context: OrderContext): OperationTemplates {
  return { own: info.elements, other: context.other?.info.elements ?? null };
}
