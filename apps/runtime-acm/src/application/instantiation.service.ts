import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  InstanceOrder,
  InstanceQuery,
  InstanceStateUpdate,
  JsonObject,
  OperationSession,
  ReplaceUpdate,
  Store,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  DomainError,
  IdGenerator,
  OperationSessions,
  ReadModels,
  UnitOfWork,
  assertControlSettings,
  assertDeployable,
  assertParticipantsOnline,
  checkOrderMayStart,
  isOrderAllowed,
  mergeProperties,
  planMigration,
  planMigrationRevert,
  planUpdateRevert,
  replacePhaseProblems,
  replaceRollbackProblem,
  isReplacingUpdate,
  resolveStateChange,
  updateClassification,
  supersedingKey,
  validateInstanceElements,
} from '@acm/domain';
import { Injectable } from '@nestjs/common';
import type { ToscaProblem } from '@acm/tosca';
import { OperationEngine, orderKeys } from '../engine/operation-engine';
import { InstanceProperties } from './instance-properties';
import { TemplateReader } from '../engine/template-reader';
import { SensitiveValues } from '../security/sensitive-values';
import { definitionNotFound, instanceNotFound } from './not-found';
import { primedDefinition } from './primed-definition';

/** An instance body after its shape was checked (http/instance-body.ts). */
export interface InstanceRequest {
  readonly instanceId?: string;
  readonly compositionId: string;
  readonly compositionTargetId?: string;
  readonly precheck?: boolean;
  readonly name: string;
  readonly version: string;
  readonly description: string | null;
  readonly derivedFrom: string | null;
  readonly metadata: JsonObject | null;
  readonly elements: ReadonlyArray<{
    readonly id: string;
    readonly definition: { readonly name: string; readonly version: string };
    readonly description: string | null;
    readonly properties: JsonObject;
  }>;
}

/** What a create would store (POST ?dryRun=true), and the property problems PROPERTY_VALIDATION=warn accepts. */
export interface InstancePreview {
  automationComposition: AutomationComposition;
  propertyProblems: readonly ToscaProblem[];
}

export interface InstantiationResponse {
  instanceId: string;
  affectedAutomationComposition: { name: string; version: string };
}

function responseOf(instance: AutomationComposition): InstantiationResponse {
  return {
    instanceId: instance.instanceId,
    affectedAutomationComposition: { name: instance.name, version: instance.version },
  };
}

/** Instances: create, update, state changes, delete (ONAP AutomationCompositionInstantiationProvider). */
@Injectable()
export class InstantiationService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly engine: OperationEngine,
    private readonly properties: InstanceProperties,
    private readonly sensitive: SensitiveValues,
    private readonly sessions: OperationSessions,
    private readonly reads: ReadModels,
  ) {}

  /**
   * An order's transaction: an operation session that locks and loads the instance, its running operation, its
   * definitions and the participants up front (`orderKeys`), and writes the order's rows in one statement before
   * the commit. `store` sees the session's writes, for the service's own checks and writes.
   */
  private orderTransaction<T>(
    instanceId: string,
    work: (store: Store, session: OperationSession) => Promise<T>,
  ): Promise<T> {
    return this.sessions.transaction(orderKeys(instanceId), (session, { store }) => work(store, session));
  }

  async create(pathCompositionId: string, request: InstanceRequest): Promise<InstantiationResponse> {
    this.assertSameComposition(pathCompositionId, request.compositionId);
    return this.unitOfWork.transaction(async (store) => {
      const { instance, problems } = await this.newInstance(store, request);
      await store.instances.insert(instance);
      await this.properties.report(store, instance.instanceId, 'CREATE', problems);
      return responseOf(instance);
    });
  }

  /** POST ?dryRun=true: every check of a create, and the instance it would store; nothing is written. */
  async preview(pathCompositionId: string, request: InstanceRequest): Promise<InstancePreview> {
    this.assertSameComposition(pathCompositionId, request.compositionId);
    return this.unitOfWork.read(async (store) => {
      const { instance, problems } = await this.newInstance(store, request);
      return { automationComposition: instance, propertyProblems: problems };
    });
  }

  private async newInstance(
    store: Store,
    request: InstanceRequest,
  ): Promise<{ instance: AutomationComposition; problems: readonly ToscaProblem[] }> {
    const definition = await this.primedDefinition(store, request.compositionId);
    await this.assertOnline(
      store,
      Object.values(definition.elementStateMap).map((state) => state.participantId),
    );
    this.validateAgainstDefinition(definition, request);
    assertControlSettings(request.metadata, 'metadata');
    const checked = this.properties.check(definition, request.elements);
    await this.assertFree(store, request);
    const instance: AutomationComposition = {
      instanceId: this.ids.uuid(),
      compositionId: request.compositionId,
      compositionTargetId: null,
      name: request.name,
      version: request.version,
      description: request.description,
      derivedFrom: request.derivedFrom,
      metadata: request.metadata,
      precheck: null,
      deployState: 'UNDEPLOYED',
      lockState: 'NONE',
      subState: 'NONE',
      stateChangeResult: 'NO_ERROR',
      phase: null,
      lastMsg: this.clock.now(),
      revisionId: this.ids.uuid(),
      elements: this.sensitive.protect(definition, this.elementsOf(definition, request, checked.properties)),
    };
    return { instance, problems: checked.problems };
  }

  /** POST with an instanceId: an update (migrate and precheck arrive with compositionTargetId). */
  async update(
    pathCompositionId: string,
    request: InstanceRequest & { instanceId: string },
  ): Promise<InstantiationResponse> {
    this.assertSameComposition(pathCompositionId, request.compositionId);
    const targetId = request.compositionTargetId;
    return this.orderTransaction(request.instanceId, async (store, session) => {
      const found = await this.findInstance(store, request.instanceId, pathCompositionId);
      const current = found.value;
      if (targetId !== undefined) {
        return request.precheck === true
          ? this.precheckMigration(store, session, found, targetId, request)
          : this.migrate(store, session, found, targetId, request);
      }
      return checkOrderMayStart('UPDATE', current)
        ? this.mergeDeployed(store, session, found, request)
        : this.replaceUndeployed(store, found, request);
    });
  }

  private async replaceUndeployed(
    store: Store,
    found: Versioned<AutomationComposition>,
    request: InstanceRequest & { instanceId: string },
  ): Promise<InstantiationResponse> {
    const definition = await this.primedDefinition(store, found.value.compositionId);
    this.validateAgainstDefinition(definition, request);
    const checked = this.properties.check(definition, request.elements);
    await this.assertFree(store, request, found.value.instanceId);
    const updated: AutomationComposition = {
      ...found.value,
      name: request.name,
      version: request.version,
      description: request.description,
      derivedFrom: request.derivedFrom,
      metadata: request.metadata,
      elements: this.sensitive.protect(
        definition,
        this.elementsOf(definition, request, checked.properties),
        found.value.elements,
      ),
      lastMsg: this.clock.now(),
      revisionId: this.ids.uuid(),
    };
    await store.instances.update(updated, found.version);
    await this.properties.report(store, updated.instanceId, 'UPDATE', checked.problems);
    return responseOf(updated);
  }

  private async mergeDeployed(
    store: Store,
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    request: InstanceRequest & { instanceId: string },
  ): Promise<InstantiationResponse> {
    const current = found.value;
    const unknown = request.elements.filter((element) => current.elements[element.id] === undefined);
    if (unknown.length > 0) {
      throw new DomainError(
        'VALIDATION_FAILED',
        unknown.map((element) => `Element id not present ${element.id}`).join('\n'),
      );
    }
    await this.assertOnline(
      store,
      Object.values(current.elements).map((element) => element.participantId),
    );
    const given = new Map(request.elements.map((element) => [element.id, element]));
    const definition = await this.definitionOf(store, current.compositionId);
    const checked = this.properties.check(
      definition,
      request.elements.map((change) => ({
        ...change,
        properties: mergeProperties(current.elements[change.id]?.properties ?? {}, change.properties),
      })),
    );
    const merged: AutomationComposition = {
      ...current,
      elements: this.sensitive.protect(
        definition,
        Object.fromEntries(
          Object.entries(current.elements).map(([id, element]): [string, InstanceElement] => {
            const properties = given.has(id) ? checked.properties.get(id) : undefined;
            return [id, properties ? { ...element, properties } : element];
          }),
        ),
        current.elements,
      ),
    };
    // The snapshot is what a rollback restores: the last DEPLOYED elements. A retry after a failed update
    // keeps it, so the rollback still returns to the state before the first attempt.
    if (current.deployState === 'DEPLOYED') {
      await this.snapshot(store, current, current.compositionId);
    }
    const replace = this.replaceOf(definition, current, merged, request);
    const updated = await this.engine.startInstanceOrder(
      session,
      // A replacing UPDATE starts from the elements as they are: the machine gives each its new properties.
      { value: replace === undefined ? merged : current, version: found.version },
      definition,
      'UPDATE',
      replace === undefined ? {} : { replace },
    );
    await this.properties.report(store, updated.instanceId, 'UPDATE', checked.problems);
    return responseOf(updated);
  }

  /**
   * What an UPDATE of a deployed instance replaces or removes (`updatable: false`, `removeOrphans`), for the machine;
   * undefined when it is ONAP's UPDATE (one PROPERTIES_UPDATE of every element), as for every definition that sets
   * neither flag.
   */
  private replaceOf(
    definition: CompositionDefinition,
    current: AutomationComposition,
    merged: AutomationComposition,
    request: InstanceRequest,
  ): ReplaceUpdate | undefined {
    const info = this.templates.readDefinition(definition);
    const next = Object.fromEntries(
      request.elements.map((element): [string, JsonObject] => [
        element.id,
        merged.elements[element.id]?.properties ?? {},
      ]),
    );
    const replace: ReplaceUpdate = { next, removeOrphans: info.removeOrphans === true };
    const classification = updateClassification({
      elements: current.elements,
      next: new Map(Object.entries(next)),
      templates: info.elements,
      removeOrphans: replace.removeOrphans,
    });
    if (!isReplacingUpdate(current.elements, classification)) {
      return undefined;
    }
    const problems = replacePhaseProblems(info.elements);
    if (problems.length > 0) {
      throw new DomainError('VALIDATION_FAILED', problems.join('\n'));
    }
    return replace;
  }

  /** POST with compositionTargetId: migrate the instance to another primed composition. */
  private async migrate(
    store: Store,
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    targetId: string,
    request: InstanceRequest & { instanceId: string },
  ): Promise<InstantiationResponse> {
    const current = found.value;
    checkOrderMayStart('MIGRATE', current);
    const { source, target, planned, problems } = await this.planMigrationTo(store, current, targetId, request);
    await this.snapshot(store, current, current.compositionId);
    const migrating: AutomationComposition = { ...current, compositionTargetId: targetId, elements: planned };
    const updated = await this.engine.startInstanceOrder(
      session,
      { value: migrating, version: found.version },
      source,
      'MIGRATE',
      { target },
    );
    await this.properties.report(store, updated.instanceId, 'MIGRATE', problems);
    return responseOf(updated);
  }

  /**
   * POST with compositionTargetId and precheck: asks the participants whether the migration would work.
   * Nothing but the sub-state changes on the instance: the target id and the planned elements travel in
   * the message only (ONAP does not persist them either).
   */
  private async precheckMigration(
    store: Store,
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    targetId: string,
    request: InstanceRequest & { instanceId: string },
  ): Promise<InstantiationResponse> {
    const current = found.value;
    checkOrderMayStart('MIGRATE_PRECHECK', current);
    const { source, target, planned, problems } = await this.planMigrationTo(store, current, targetId, request);
    const updated = await this.engine.startInstanceOrder(session, found, source, 'MIGRATE_PRECHECK', {
      target,
      planned,
    });
    await this.properties.report(store, updated.instanceId, 'MIGRATE_PRECHECK', problems);
    return responseOf(updated);
  }

  /**
   * The checks migrate and precheck share: target primed, elements compatible and complete, their properties valid
   * for the target, participants online.
   */
  private async planMigrationTo(
    store: Store,
    current: AutomationComposition,
    targetId: string,
    request: InstanceRequest,
  ): Promise<{
    source: CompositionDefinition;
    target: CompositionDefinition;
    planned: Record<string, InstanceElement>;
    problems: readonly ToscaProblem[];
  }> {
    const source = await this.definitionOf(store, current.compositionId);
    const target = await this.primedDefinition(store, targetId);
    const info = this.templates.readDefinition(target);
    const migrated = planMigration(current.elements, request.elements, {
      listedElements: info.listedElements,
      participantOf: (name) => target.elementStateMap[name]?.participantId ?? null,
    });
    const kept = Object.values(migrated).filter((element) => element.migrationState !== 'REMOVED');
    const checked = this.properties.check(target, kept);
    const planned = this.sensitive.protect(
      target,
      Object.fromEntries(
        Object.entries(migrated).map(([id, element]): [string, InstanceElement] => {
          const properties = checked.properties.get(id);
          return [id, properties ? { ...element, properties } : element];
        }),
      ),
      current.elements,
    );
    const added = Object.values(planned).filter((element) => element.migrationState === 'NEW');
    const used = await store.instances.elementIdsInUse(
      added.map((element) => element.id),
      current.instanceId,
    );
    if (used.length > 0) {
      throw new DomainError('ALREADY_EXISTS', `Element id ${used.join(', ')} UUID already used by another instance`);
    }
    await this.assertOnline(store, [
      ...Object.values(source.elementStateMap).map((state) => state.participantId),
      ...Object.values(target.elementStateMap).map((state) => state.participantId),
    ]);
    return { source, target, planned, problems: checked.problems };
  }

  private async snapshot(store: Store, instance: AutomationComposition, compositionId: string): Promise<void> {
    await store.rollbacks.save({
      instanceId: instance.instanceId,
      compositionId,
      elements: instance.elements,
      createdAt: this.clock.now(),
    });
  }

  async get(pathCompositionId: string, instanceId: string): Promise<AutomationComposition> {
    const found = await this.reads.read((model) => model.instances.find(instanceId));
    return this.matchingInstance(found, instanceId, pathCompositionId).value;
  }

  list(query: InstanceQuery): Promise<AutomationComposition[]> {
    return this.reads.read((model) => model.instances.list(query));
  }

  /**
   * PUT state change: DEPLOY, UNDEPLOY, LOCK, UNLOCK, PREPARE or REVIEW. With `supersede` (beyond ONAP, Heat's new
   * traversal) an order refused only because an operation runs cancels that operation and starts from the
   * elements' current states; it is checked as ONAP checks an order after a failure (`supersedingKey`).
   */
  async changeState(
    pathCompositionId: string,
    instanceId: string,
    update: InstanceStateUpdate,
    supersede = false,
  ): Promise<void> {
    await this.orderTransaction(instanceId, async (store, session) => {
      const stored = await this.findInstance(store, instanceId, pathCompositionId);
      const order = resolveStateChange(update, supersede ? supersedingKey(stored.value) : stored.value);
      const superseding = supersede && supersedingKey(stored.value) !== stored.value;
      // A new revision, so a participant does not take the new order for a resend of the one it still runs.
      const found = superseding ? { ...stored, value: { ...stored.value, revisionId: this.ids.uuid() } } : stored;
      if (order === 'DEPLOY') {
        assertDeployable(found.value);
      }
      await this.startOrder(store, session, found, order);
    });
  }

  async delete(pathCompositionId: string, instanceId: string): Promise<InstantiationResponse> {
    return this.orderTransaction(instanceId, async (store, session) => {
      const found = await this.findInstance(store, instanceId, pathCompositionId);
      checkOrderMayStart('DELETE', found.value);
      await this.startOrder(store, session, found, 'DELETE');
      return responseOf(found.value);
    });
  }

  /**
   * POST .../rollback: a failed or timed-out update (UPDATE_REVERT) or migration (MIGRATION_REVERT)
   * returns to the elements of the rollback snapshot. As in ONAP, the elements being left are
   * snapshotted in turn, and the participants get the order as "before" / "after" DTOs.
   */
  async rollback(pathCompositionId: string, instanceId: string): Promise<void> {
    await this.orderTransaction(instanceId, async (store, session) => {
      const found = await this.findInstance(store, instanceId, pathCompositionId);
      const instance = found.value;
      const order: InstanceOrder = instance.deployState === 'UPDATING' ? 'UPDATE_REVERT' : 'MIGRATION_REVERT';
      if (!isOrderAllowed(order, instance)) {
        throw new DomainError(
          'ORDER_NOT_ALLOWED',
          `Invalid state for rollback, Ac Instance is ${instance.deployState}. State: ` +
            `${instance.deployState}/${instance.lockState}/${instance.subState}/${instance.stateChangeResult}; ` +
            'rollback needs an update or migration that FAILED or timed out (UPDATING or MIGRATING, LOCKED, ' +
            'FAILED or TIMEOUT)',
          { ...this.stateOf(instance), order },
        );
      }
      const snapshot = await store.rollbacks.find(instanceId);
      if (!snapshot) {
        throw new DomainError(
          'ORDER_NOT_ALLOWED',
          `No rollback snapshot is stored for instance ${instanceId}: nothing to roll back`,
          { instanceId },
        );
      }
      const definition = await this.definitionOf(store, instance.compositionId);
      if (order === 'UPDATE_REVERT') {
        await this.assertOnline(
          store,
          Object.values(instance.elements).map((element) => element.participantId),
        );
        const unrevertable = replaceRollbackProblem(
          instance.elements,
          snapshot.elements,
          this.templates.readDefinition(definition).elements,
        );
        if (unrevertable !== null) {
          throw new DomainError('ORDER_NOT_ALLOWED', unrevertable, { ...this.stateOf(instance), order });
        }
        await this.snapshot(store, instance, instance.compositionId);
        const restored = { ...instance, elements: planUpdateRevert(instance.elements, snapshot.elements) };
        await this.engine.startInstanceOrder(session, { value: restored, version: found.version }, definition, order);
        return;
      }
      const leaving = instance.compositionTargetId;
      const target = leaving === null ? null : await store.definitions.find(leaving);
      await this.assertOnline(store, [
        ...Object.values(definition.elementStateMap).map((state) => state.participantId),
        ...Object.values(target?.value.elementStateMap ?? {}).map((state) => state.participantId),
      ]);
      await this.snapshot(store, instance, leaving ?? instance.compositionId);
      const restored = { ...instance, elements: planMigrationRevert(instance.elements, snapshot.elements) };
      await this.engine.startInstanceOrder(session, { value: restored, version: found.version }, definition, order);
    });
  }

  private stateOf(instance: AutomationComposition): Record<string, string> {
    return {
      deployState: instance.deployState,
      lockState: instance.lockState,
      subState: instance.subState,
      stateChangeResult: instance.stateChangeResult,
    };
  }

  /** Hands the order to the engine, which cascades the transitional state and queues the first phase. */
  private async startOrder(
    store: Store,
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    order: InstanceOrder,
  ): Promise<void> {
    await this.assertOnline(
      store,
      Object.values(found.value.elements).map((element) => element.participantId),
    );
    const definition = await this.definitionOf(store, found.value.compositionId);
    await this.engine.startInstanceOrder(session, found, definition, order);
  }

  private async definitionOf(store: Store, compositionId: string): Promise<CompositionDefinition> {
    const found = await store.definitions.find(compositionId);
    if (!found) {
      throw definitionNotFound(compositionId);
    }
    return found.value;
  }

  private assertSameComposition(pathCompositionId: string, bodyCompositionId: string): void {
    if (pathCompositionId !== bodyCompositionId) {
      throw new DomainError('ID_MISMATCH', `${bodyCompositionId} do not match with ${pathCompositionId}`, {
        pathCompositionId,
        bodyCompositionId,
      });
    }
  }

  private async findInstance(
    store: Store,
    instanceId: string,
    pathCompositionId: string,
  ): Promise<Versioned<AutomationComposition>> {
    // Orders lock the row: an ACK applied meanwhile waits instead of failing the order with a 409.
    return this.matchingInstance(await store.instances.findForUpdate(instanceId), instanceId, pathCompositionId);
  }

  /** The instance found, refused when missing or when the path names neither its composition nor its target. */
  private matchingInstance(
    found: Versioned<AutomationComposition> | null,
    instanceId: string,
    pathCompositionId: string,
  ): Versioned<AutomationComposition> {
    if (!found) {
      throw instanceNotFound(instanceId);
    }
    const instance = found.value;
    if (instance.compositionId !== pathCompositionId && instance.compositionTargetId !== pathCompositionId) {
      throw new DomainError('ID_MISMATCH', `${instance.compositionId} do not match with ${pathCompositionId}`, {
        instanceId,
      });
    }
    return found;
  }

  private primedDefinition(store: Store, compositionId: string): Promise<CompositionDefinition> {
    return primedDefinition(store, compositionId);
  }

  private validateAgainstDefinition(definition: CompositionDefinition, request: InstanceRequest): void {
    const info = this.templates.readDefinition(definition);
    validateInstanceElements(info.listedElements, request.elements);
  }

  private async assertFree(store: Store, request: InstanceRequest, exceptInstanceId?: string): Promise<void> {
    if (await store.instances.isNameVersionTaken(request.name, request.version, exceptInstanceId)) {
      throw new DomainError('ALREADY_EXISTS', `${request.name} ${request.version} already defined`);
    }
    const used = await store.instances.elementIdsInUse(
      request.elements.map((element) => element.id),
      exceptInstanceId,
    );
    if (used.length > 0) {
      throw new DomainError('ALREADY_EXISTS', `Element id ${used.join(', ')} UUID already used by another instance`);
    }
  }

  private async assertOnline(store: Store, participantIds: ReadonlyArray<string | null>): Promise<void> {
    const ids = participantIds.filter((id): id is string => id !== null);
    const participants = await store.participants.list();
    assertParticipantsOnline(ids, new Map(participants.map((participant) => [participant.participantId, participant])));
  }

  private elementsOf(
    definition: CompositionDefinition,
    request: InstanceRequest,
    properties: ReadonlyMap<string, JsonObject>,
  ): Record<string, InstanceElement> {
    return Object.fromEntries(
      request.elements.map((element): [string, InstanceElement] => [
        element.id,
        {
          id: element.id,
          definition: element.definition,
          participantId: definition.elementStateMap[element.definition.name]?.participantId ?? null,
          deployState: 'UNDEPLOYED',
          lockState: 'NONE',
          subState: 'NONE',
          migrationState: 'DEFAULT',
          stage: null,
          operationalState: null,
          useState: null,
          description: element.description,
          message: null,
          properties: properties.get(element.id) ?? element.properties,
          outProperties: {},
        },
      ]),
    );
  }
}
