/** AUTOMATION_COMPOSITION_MIGRATION: migrate, precheck a migration, or roll one back, stage by stage. */
import type { AcElementDeploy, AutomationCompositionMigration, Uuid } from '@acm/contracts';

import { compositionElementFromDto, copy, dtoDefinition, nextStageOf, previousStageOf, stagesOf } from '../../cache';
import type { CompositionElement, InstanceElement } from '../../types';
import { dtoMap } from '../core';
import type { ParticipantCore } from '../core';
import { answerResend, runElement } from '../element-runner';
import { beginOrder } from '../order-memory';

type MigrationOperation = 'migrate' | 'migratePrecheck' | 'rollbackMigration';

export async function onMigration(core: ParticipantCore, message: AutomationCompositionMigration): Promise<void> {
  const order = await beginOrder(core, message.messageId);
  if (order === undefined) {
    return;
  }
  const instanceId = message.automationCompositionId;
  const operation: MigrationOperation =
    message.precheck === true ? 'migratePrecheck' : message.rollback === true ? 'rollbackMigration' : 'migrate';
  const stage = message.stage ?? 0;
  const deploys = core.myDeploys(message.participantUpdatesList);
  const dtos = core.myDtos(message.participantDtoList);
  const dtoById = dtoMap(dtos);
  // A precheck changes nothing, so an instance this replica does not hold is not cached for it: a cached
  // copy would carry the revision before the precheck and make the migration that follows look stale.
  const instance =
    core.cache.instances.get(instanceId) ??
    (operation === 'migratePrecheck'
      ? {
          instanceId,
          stateChangeResult: 'NO_ERROR' as const,
          elements: new Map<Uuid, InstanceElement>(),
          ...(message.compositionId !== undefined ? { compositionId: message.compositionId } : {}),
        }
      : core.cache.upsertFromOrder(instanceId, message.compositionId, message.revisionIdInstance, [], dtos, false)
          .instance);
  const sourceId = instance.compositionId ?? message.compositionId;
  const targetId = message.compositionTargetId ?? sourceId;
  if (operation !== 'migratePrecheck' && message.firstStage !== false && targetId !== undefined) {
    instance.compositionTargetId = targetId;
  }
  const targets: AcElementDeploy[] =
    deploys.length > 0
      ? deploys
      : [...dtoById.entries()].flatMap(([id, dto]) => {
          const definition = dtoDefinition(dto);
          return definition === undefined
            ? []
            : [{ id, definition, properties: dto.instanceElementTarget?.inProperties ?? {} }];
        });
  const revision = message.revisionIdInstance === undefined ? {} : { revision: message.revisionIdInstance };

  for (const target of targets) {
    const dto = dtoById.get(target.id);
    const migrationState =
      target.migrationState ??
      (dto?.instanceElementTarget?.state === 'NEW' || dto?.instanceElementTarget?.state === 'REMOVED'
        ? dto.instanceElementTarget.state
        : 'DEFAULT');
    const properties = copy(
      target.properties ??
        dto?.instanceElementTarget?.inProperties ??
        instance.elements.get(target.id)?.properties ??
        {},
    );
    const step = {
      operation,
      phase: stage,
      ...revision,
      target: { compositionTargetId: targetId ?? null, definition: target.definition, properties, migrationState },
    };
    // Checked before the cache is touched: a REMOVED element the first delivery deleted must stay deleted.
    if (
      operation !== 'migratePrecheck' &&
      (await answerResend(core, order, message.messageId, instanceId, target.id, step))
    ) {
      continue;
    }
    const cached = instance.elements.get(target.id);
    const sourceElement: CompositionElement =
      cached === undefined
        ? compositionElementFromDto(undefined, sourceId ?? '', target.definition)
        : core.compositionElementFor(sourceId, cached.definition, dto?.compositionElement);
    const targetElement = core.compositionElementFor(targetId, target.definition, dto?.compositionElementTarget);
    const stages = stagesOf((migrationState === 'REMOVED' ? sourceElement : targetElement).inProperties, 'migrate');
    if (operation !== 'migratePrecheck' && !stages.includes(stage)) {
      continue;
    }
    // A migration rollback walks the stages downwards (ONAP getRollbackNextStage).
    const nextStage =
      operation === 'migratePrecheck'
        ? stage
        : operation === 'rollbackMigration'
          ? previousStageOf(stages, stage)
          : nextStageOf(stages, stage);
    const migrate: InstanceElement = {
      ...(cached === undefined
        ? { instanceId, id: target.id, outProperties: {}, deployState: 'DEPLOYED', lockState: 'LOCKED' }
        : copy(cached)),
      definition: copy(target.definition),
      properties,
      migrationState,
    };
    if (cached === undefined && operation !== 'migratePrecheck') {
      instance.elements.set(target.id, copy(migrate));
    }
    const before: InstanceElement = cached === undefined ? { ...copy(migrate), properties: {} } : copy(cached);
    const handler = core.handler;
    await runElement(core, {
      order,
      messageId: message.messageId,
      operation,
      instanceId,
      element: before,
      compositionElement: sourceElement,
      phase: stage,
      ...revision,
      target: step.target,
      invoke:
        handler[operation] === undefined
          ? undefined
          : (ctx) =>
              handler[operation]?.({
                ...ctx,
                compositionElementTarget: targetElement,
                instanceElementMigrate: copy(migrate),
                stage,
                nextStage,
              }),
      ...(operation === 'migratePrecheck' ? {} : { staged: { stage, nextStage } }),
      removed: migrationState === 'REMOVED' && operation !== 'migratePrecheck',
      onFinal: (ok) => {
        if (!ok || operation === 'migratePrecheck') {
          return;
        }
        const current = core.cache.instances.get(instanceId);
        const now = current?.elements.get(target.id);
        if (now !== undefined) {
          // Migrate moves the element to the target; a rollback moves it back to what the order restores.
          now.definition = copy(target.definition);
          now.properties = copy(migrate.properties);
          now.migrationState = 'DEFAULT';
        }
        const transitional: readonly string[] = ['MIGRATING', 'MIGRATION_REVERTING'];
        if (
          current !== undefined &&
          ![...current.elements.values()].some((e) => transitional.includes(e.deployState))
        ) {
          if (targetId !== undefined) {
            current.compositionId = targetId;
          }
          delete current.compositionTargetId;
        }
      },
    });
  }
}
