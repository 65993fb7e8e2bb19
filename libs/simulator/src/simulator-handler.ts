/**
 * The simulated element behaviour, written with the participant SDK. It mirrors ONAP's simulator
 * (participant-impl-simulator SimulatorService). Each operation waits its configured delay, then succeeds
 * or fails according to SimConfig. The simulator records `InternalState` in deploy/undeploy outProperties
 * and in definition outProperties on prime/deprime, and the stage lists `stage`, `prepareStage` and
 * `rollbackStage`.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { PropertyMap } from '@acm/contracts';
import type {
  Composition,
  CompositionContext,
  CompositionOutcome,
  ElementContext,
  ElementHandler,
  ElementOutcome,
  MigrationContext,
  ObserveContext,
  PrepareContext,
  UpdateContext,
} from '@acm/participant-sdk';

import { SimObservations } from './sim-observations';
import { SUCCESS_FLAGS } from './sim-config';
import type { SimConfig, SimOperation } from './sim-config';

export const INTERNAL_STATE = 'InternalState';

/** Holds the live SimConfig (changed by `PUT /parameters`) and the start-up one (the base of a PUT). */
export class SimConfigHolder {
  private current: SimConfig;
  private failing = new Map<string, ReadonlySet<SimOperation>>();

  constructor(readonly startup: SimConfig) {
    this.current = { ...startup };
  }

  get config(): SimConfig {
    return this.current;
  }

  set config(config: SimConfig) {
    this.current = { ...config };
  }

  /** Whether the operation succeeds: ONAP's flag for every instance, unless this instance is set to fail it. */
  succeeds(operation: SimOperation, instanceId?: string): boolean {
    if (instanceId !== undefined && this.failing.get(instanceId)?.has(operation) === true) {
      return false;
    }
    return this.current[SUCCESS_FLAGS[operation]];
  }

  /** The instances set to fail given operations whatever the flags say (not in ONAP's simulator). */
  get failures(): InstanceFailures {
    return {
      instances: [...this.failing].map(([instanceId, operations]) => ({ instanceId, operations: [...operations] })),
    };
  }

  set failures(failures: InstanceFailures) {
    this.failing = new Map(failures.instances.map((item) => [item.instanceId, new Set(item.operations)]));
  }

  delayMs(operation: SimOperation): number {
    return this.current[`${operation}TimerMs`];
  }

  props(operation: Exclude<SimOperation, 'delete'>): PropertyMap | undefined {
    return this.current[`${operation}Props`];
  }
}

/** Instances that fail given operations whatever the success flags say: a fault for one instance among many. */
export interface InstanceFailures {
  instances: Array<{ instanceId: string; operations: SimOperation[] }>;
}

/** Waits the operation's delay. Returns false when the operation was cancelled in the meantime. */
async function waited(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) {
    return false;
  }
  if (ms <= 0) {
    return true;
  }
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function withStage(outProperties: PropertyMap, key: string, stage: number): PropertyMap {
  const previous = outProperties[key];
  const stages = Array.isArray(previous) ? [...(previous as unknown[])] : [];
  stages.push(stage);
  return { ...outProperties, [key]: stages };
}

/** Builds the simulator's ElementHandler on a config holder. */
export function createSimulatorHandler(
  settings: SimConfigHolder,
  observations: SimObservations = new SimObservations(false),
): Required<ElementHandler> {
  /**
   * The shape shared by ONAP's lock, unlock, update, precheck and review: wait, then report success with the
   * configured props (or the current outProperties), or report failure with a fixed message.
   */
  const simple =
    (operation: 'lock' | 'unlock' | 'update' | 'migratePrecheck' | 'review', done: string, failed: string) =>
    async (ctx: ElementContext): Promise<ElementOutcome> => {
      if (!(await waited(settings.delayMs(operation), ctx.signal))) {
        return 'pending';
      }
      const outProperties = ctx.instanceElement.outProperties;
      return settings.succeeds(operation, ctx.instanceId)
        ? { ok: true, message: done, outProperties: settings.props(operation) ?? outProperties }
        : { ok: false, message: failed, outProperties };
    };

  const compositionOutProperties = (composition: Composition, state: string): Record<string, PropertyMap> =>
    Object.fromEntries(
      composition.elements.map((element) => [
        `${element.definition.name} ${element.definition.version}`,
        { ...element.outProperties, [INTERNAL_STATE]: state },
      ]),
    );

  return {
    observe(ctx: ObserveContext) {
      return observations.observe(ctx);
    },

    async deploy(ctx: ElementContext): Promise<ElementOutcome> {
      const outProperties = { ...ctx.instanceElement.outProperties };
      if (settings.props('deploy') === undefined) {
        await ctx.report.info({ outProperties: { ...outProperties, [INTERNAL_STATE]: 'DEPLOYING' } });
      }
      if (!(await waited(settings.delayMs('deploy'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('deploy', ctx.instanceId)
        ? {
            ok: true,
            message: 'Deployed',
            outProperties: settings.props('deploy') ?? { ...outProperties, [INTERNAL_STATE]: 'DEPLOYED' },
          }
        : { ok: false, message: 'Deploy failed!', outProperties: { ...outProperties, [INTERNAL_STATE]: 'UNDEPLOYED' } };
    },

    async undeploy(ctx: ElementContext): Promise<ElementOutcome> {
      const outProperties = { ...ctx.instanceElement.outProperties };
      if (settings.props('undeploy') === undefined) {
        await ctx.report.info({ outProperties: { ...outProperties, [INTERNAL_STATE]: 'UNDEPLOYING' } });
      }
      if (!(await waited(settings.delayMs('undeploy'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('undeploy', ctx.instanceId)
        ? {
            ok: true,
            message: 'Undeployed',
            outProperties: settings.props('undeploy') ?? { ...outProperties, [INTERNAL_STATE]: 'UNDEPLOYED' },
          }
        : { ok: false, message: 'Undeploy failed!', outProperties: { ...outProperties, [INTERNAL_STATE]: 'DEPLOYED' } };
    },

    lock: simple('lock', 'Locked', 'Lock failed!'),
    unlock: simple('unlock', 'Unlocked', 'Unlock failed!'),

    async delete(ctx: ElementContext): Promise<ElementOutcome> {
      if (!(await waited(settings.delayMs('delete'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('delete', ctx.instanceId)
        ? { ok: true, message: 'Deleted' }
        : { ok: false, message: 'Delete failed!' };
    },

    update: (ctx: UpdateContext) => simple('update', 'Updated', 'Update failed!')(ctx),
    migratePrecheck: (ctx: MigrationContext) =>
      simple('migratePrecheck', 'Migration precheck completed', 'Migration precheck failed')(ctx),
    review: (ctx: PrepareContext) => simple('review', 'Review completed', 'Review failed')(ctx),

    async prime(composition: Composition, ctx: CompositionContext): Promise<CompositionOutcome> {
      if (!(await waited(settings.delayMs('prime'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('prime')
        ? { ok: true, message: 'Primed', outProperties: compositionOutProperties(composition, 'PRIMED') }
        : { ok: false, message: 'Prime failed!', outProperties: compositionOutProperties(composition, 'COMMISSIONED') };
    },

    async deprime(composition: Composition, ctx: CompositionContext): Promise<CompositionOutcome> {
      if (!(await waited(settings.delayMs('deprime'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('deprime')
        ? { ok: true, message: 'Deprimed', outProperties: compositionOutProperties(composition, 'COMMISSIONED') }
        : { ok: false, message: 'Deprime failed!', outProperties: compositionOutProperties(composition, 'PRIMED') };
    },

    async migrate(ctx: MigrationContext): Promise<ElementOutcome> {
      const outProperties = ctx.instanceElement.outProperties;
      if (ctx.instanceElementMigrate.migrationState === 'REMOVED') {
        // ONAP deletes a removed element at once, without the migrate delay.
        return settings.succeeds('migrate')
          ? { ok: true, message: 'Deleted' }
          : { ok: false, message: 'Migration - Delete failed!', outProperties };
      }
      if (!(await waited(settings.delayMs('migrate'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('migrate')
        ? { ok: true, outProperties: settings.props('migrate') ?? withStage(outProperties, 'stage', ctx.stage) }
        : { ok: false, message: 'Migrate failed!', outProperties };
    },

    async rollbackMigration(ctx: MigrationContext): Promise<ElementOutcome> {
      const outProperties = ctx.instanceElement.outProperties;
      if (ctx.instanceElementMigrate.migrationState === 'REMOVED') {
        return settings.succeeds('rollback')
          ? { ok: true, message: 'Deleted' }
          : { ok: false, message: 'Rollback - Delete failed!', outProperties };
      }
      if (!(await waited(settings.delayMs('rollback'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('rollback')
        ? {
            ok: true,
            message: ctx.nextStage === ctx.stage ? 'Migration rollback done' : `stage ${ctx.stage} Migration rollback`,
            outProperties: settings.props('rollback') ?? withStage(outProperties, 'rollbackStage', ctx.stage),
          }
        : { ok: false, message: 'Migration rollback failed', outProperties };
    },

    async prepare(ctx: PrepareContext): Promise<ElementOutcome> {
      const outProperties = ctx.instanceElement.outProperties;
      if (!(await waited(settings.delayMs('prepare'), ctx.signal))) {
        return 'pending';
      }
      return settings.succeeds('prepare')
        ? {
            ok: true,
            message: ctx.nextStage === ctx.stage ? 'Prepare completed' : `stage ${ctx.stage} Prepared`,
            outProperties: settings.props('prepare') ?? withStage(outProperties, 'prepareStage', ctx.stage),
          }
        : { ok: false, message: 'Prepare failed', outProperties };
    },
  };
}
