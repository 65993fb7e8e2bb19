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
  UpdateClassification,
  Store,
  Versioned,
} from '@acm/domain';
import {
  Clock,
  DEFAULT_PROJECT,
  DomainError,
  IdGenerator,
  OperationSessions,
  ReadModels,
  UnitOfWork,
  assertControlSettings,
  assertDeployable,
  assertNestedPrimed,
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
import { checkInstanceReferences, formatProblems } from '@acm/tosca';
import { OperationEngine, orderKeys } from '../engine/operation-engine';
import { InstanceProperties } from './instance-properties';
import { TemplateReader } from '../engine/template-reader';
import { SensitiveValues } from '../security/sensitive-values';
import { definitionNotFound, instanceNotFound } from './not-found';
import { primedDefinition } from './primed-definition';
import type { PlanDigestInput, PlannedBody } from './plan-digest';
import { assertPlanCurrent } from './plan-digest';
import type { GroupCountChange } from './group-members';
import {
  NO_COUNT_CHANGE,
  countChangeOf,
  expandedMigrationRequest,
  expandedRequest,
  memberIdsOfListedGroups,
} from './group-members';
import { assertNotOwned, recordParentOrder } from './nested-ownership';
import { loadNestedDefinitions, nestingNodeOf } from './nesting';

/** An instance body after its shape was checked (http/instance-body.ts): the fields a plan hashes, and two more. */
export interface InstanceRequest extends PlannedBody {
  readonly instanceId?: string;
  readonly precheck?: boolean;
}

/** What a create would store (POST ?dryRun=true), and the property problems PROPERTY_VALIDATION=warn accepts. */
export interface InstancePreview {
  automationComposition: AutomationComposition;
  propertyProblems: readonly ToscaProblem[];
}

/** An update, migration or precheck after every check of the order, before anything is written. */
export interface PreparedUpdate {
  readonly order: 'UPDATE' | 'MIGRATE' | 'MIGRATE_PRECHECK';
  readonly source: CompositionDefinition;
  /** A migration's or precheck's target definition. */
  readonly target?: CompositionDefinition;
  /** The elements the order would store or send (a migration's NEW and REMOVED ones marked), sensitive ones protected. */
  readonly elements: Record<string, InstanceElement>;
  /** An update of an UNDEPLOYED instance runs no operation: this is the instance it stores instead. */
  readonly replaced?: AutomationComposition;
  /** What an UPDATE of a deployed instance replaces or removes, when its definition opts in (see replaceOf). */
  readonly replace?: ReplaceUpdate;
  /** The elements a replacing UPDATE starts from: the instance's, and the members a higher group count adds. */
  readonly startElements?: Record<string, InstanceElement>;
  /** How that UPDATE classified each element: what a plan's diff marks as replaced (and why) or deleted. */
  readonly classification?: UpdateClassification;
  readonly problems: readonly ToscaProblem[];
}

/** What a planId of an update, migration or precheck is computed from: the plan's and the order's are the same. */
export function digestInputOf(
  current: AutomationComposition,
  prepared: PreparedUpdate,
  request: InstanceRequest,
): PlanDigestInput {
  const definitions = prepared.target === undefined ? [prepared.source] : [prepared.source, prepared.target];
  return {
    instance: current,
    definitions,
    order: prepared.order,
    body: request,
  };
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

  /** `instanceId`: the id a nested composition's child is made with (a stable one); else a new one. */
  async create(
    pathCompositionId: string,
    request: InstanceRequest,
    instanceId?: string,
  ): Promise<InstantiationResponse> {
    this.assertSameComposition(pathCompositionId, request.compositionId);
    return this.unitOfWork.transaction(async (store) => {
      const made = await this.newInstance(store, request);
      const { problems } = made;
      const instance = instanceId === undefined ? made.instance : { ...made.instance, instanceId };
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
    body: InstanceRequest,
  ): Promise<{ instance: AutomationComposition; problems: readonly ToscaProblem[] }> {
    const definition = await this.primedDefinition(store, body.compositionId);
    const request = expandedRequest(body, this.templates.readDefinition(definition).elements);
    await this.assertOnline(
      store,
      Object.values(definition.elementStateMap).map((state) => state.participantId),
    );
    this.validateAgainstDefinition(definition, body, request);
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
    planId?: string,
  ): Promise<InstantiationResponse> {
    this.assertSameComposition(pathCompositionId, request.compositionId);
    return this.orderTransaction(request.instanceId, async (store, session) => {
      const found = await this.findInstance(store, request.instanceId, pathCompositionId);
      assertNotOwned(found.value, 'updated');
      const prepared = await this.prepareUpdate(store, found.value, request);
      if (planId !== undefined) {
        assertPlanCurrent(planId, digestInputOf(found.value, prepared, request));
      }
      const started = await this.startUpdate(store, session, found, prepared);
      recordParentOrder(session, found.value, 'UPDATE', this.clock.now());
      return started;
    });
  }

  /**
   * Every check of an update, migration or precheck, for `POST .../plan` (beyond ONAP): what the order would start
   * with, read outside any order's transaction; nothing is written.
   */
  async planUpdate(
    store: Store,
    pathCompositionId: string,
    request: InstanceRequest & { instanceId: string },
  ): Promise<{ current: AutomationComposition; prepared: PreparedUpdate }> {
    this.assertSameComposition(pathCompositionId, request.compositionId);
    const found = this.matchingInstance(
      await store.instances.find(request.instanceId),
      request.instanceId,
      pathCompositionId,
    );
    return { current: found.value, prepared: await this.prepareUpdate(store, found.value, request) };
  }

  /**
   * The checks of an update, migration or precheck, in the order ONAP runs them, and the instance it would store or
   * start with: an update of an UNDEPLOYED instance replaces its elements, one of a deployed instance merges the
   * given properties into them; a migration plans NEW and REMOVED elements against the target.
   */
  private async prepareUpdate(
    store: Store,
    current: AutomationComposition,
    request: InstanceRequest & { instanceId: string },
  ): Promise<PreparedUpdate> {
    const targetId = request.compositionTargetId;
    if (targetId !== undefined) {
      const order = request.precheck === true ? 'MIGRATE_PRECHECK' : 'MIGRATE';
      checkOrderMayStart(order, current);
      const { source, target, planned, problems } = await this.planMigrationTo(store, current, targetId, request);
      return { order, source, target, elements: planned, problems };
    }
    return checkOrderMayStart('UPDATE', current)
      ? this.mergedUpdate(store, current, request)
      : this.replacedUpdate(store, current, request);
  }

  /** Writes what `prepareUpdate` prepared: the order starts (or an UNDEPLOYED instance's elements are replaced). */
  private async startUpdate(
    store: Store,
    session: OperationSession,
    found: Versioned<AutomationComposition>,
    prepared: PreparedUpdate,
  ): Promise<InstantiationResponse> {
    const current = found.value;
    const { source, target, problems } = prepared;
    let updated: AutomationComposition;
    if (prepared.order === 'MIGRATE' && target !== undefined) {
      await this.snapshot(store, current, current.compositionId);
      const migrating: AutomationComposition = {
        ...current,
        compositionTargetId: target.compositionId,
        elements: prepared.elements,
      };
      updated = await this.engine.startInstanceOrder(
        session,
        { value: migrating, version: found.version },
        source,
        'MIGRATE',
        { target },
      );
    } else if (prepared.order === 'MIGRATE_PRECHECK' && target !== undefined) {
      // Nothing but the sub-state changes on the instance: the target id and the planned elements travel in the
      // message only (ONAP does not persist them either).
      updated = await this.engine.startInstanceOrder(session, found, source, 'MIGRATE_PRECHECK', {
        target,
        planned: prepared.elements,
      });
    } else if (prepared.replaced !== undefined) {
      updated = prepared.replaced;
      await store.instances.update(updated, found.version);
    } else {
      // The snapshot is what a rollback restores: the last DEPLOYED elements. A retry after a failed update
      // keeps it, so the rollback still returns to the state before the first attempt.
      if (current.deployState === 'DEPLOYED') {
        await this.snapshot(store, current, current.compositionId);
      }
      const replace = prepared.replace;
      updated = await this.engine.startInstanceOrder(
        session,
        // A replacing UPDATE starts from the elements as they are: the machine gives each its new properties.
        {
          value:
            replace === undefined
              ? { ...current, elements: prepared.elements }
              : { ...current, elements: prepared.startElements ?? current.elements },
          version: found.version,
        },
        source,
        'UPDATE',
        replace === undefined ? {} : { replace },
      );
    }
    await this.properties.report(store, updated.instanceId, prepared.order, problems);
    return responseOf(updated);
  }

  /** An update of an UNDEPLOYED instance: its elements (and name, version, metadata) are replaced, no operation runs. */
  private async replacedUpdate(
    store: Store,
    current: AutomationComposition,
    body: InstanceRequest & { instanceId: string },
  ): Promise<PreparedUpdate> {
    const definition = await this.primedDefinition(store, current.compositionId);
    const request = expandedRequest(body, this.templates.readDefinition(definition).elements);
    this.validateAgainstDefinition(definition, body, request);
    const checked = this.properties.check(definition, request.elements);
    await this.assertFree(store, request, current.instanceId);
    const elements = this.sensitive.protect(
      definition,
      this.elementsOf(definition, request, checked.properties),
      current.elements,
    );
    const replaced: AutomationComposition = {
      ...current,
      name: request.name,
      version: request.version,
      description: request.description,
      derivedFrom: request.derivedFrom,
      metadata: request.metadata,
      elements,
      lastMsg: this.clock.now(),
      revisionId: this.ids.uuid(),
    };
    return { order: 'UPDATE', source: definition, elements, replaced, problems: checked.problems };
  }

  /** An update of a deployed instance: the given properties merge into the stored ones (ONAP's rule). */
  private async mergedUpdate(
    store: Store,
    current: AutomationComposition,
    request: InstanceRequest & { instanceId: string },
  ): Promise<PreparedUpdate> {
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
    const counts = countChangeOf(current, request, this.templates.readDefinition(definition).elements);
    this.assertReferences(
      definition,
      Object.values(current.elements).map((element) => {
        const change = given.get(element.id);
        return change ? { ...element, properties: mergeProperties(element.properties, change.properties) } : element;
      }),
    );
    const checked = this.properties.check(
      definition,
      request.elements.map((change) => ({
        ...change,
        properties: mergeProperties(current.elements[change.id]?.properties ?? {}, change.properties),
      })),
    );
    const elements = this.sensitive.protect(
      definition,
      Object.fromEntries(
        Object.entries(current.elements).map(([id, element]): [string, InstanceElement] => {
          const properties = given.has(id) ? checked.properties.get(id) : undefined;
          return [id, properties ? { ...element, properties } : element];
        }),
      ),
      current.elements,
    );
    // A group's new members join the instance undeployed: the replacing UPDATE deploys them (instance/groups.ts).
    const withMembers = { ...elements, ...counts.added };
    const replacing = this.replaceOf(
      definition,
      { ...current, elements: { ...current.elements, ...counts.added } },
      withMembers,
      request,
      counts,
    );
    return {
      order: 'UPDATE',
      source: definition,
      elements: withMembers,
      problems: checked.problems,
      ...(replacing === undefined ? {} : { ...replacing, startElements: { ...current.elements, ...counts.added } }),
    };
  }

  /**
   * What an UPDATE of a deployed instance replaces or removes (`updatable: false`, `removeOrphans`), for the machine;
   * undefined when it is ONAP's UPDATE (one PROPERTIES_UPDATE of every element), as for every definition that sets
   * neither flag.
   */
  private replaceOf(
    definition: CompositionDefinition,
    current: AutomationComposition,
    merged: Readonly<Record<string, InstanceElement>>,
    request: InstanceRequest,
    counts: GroupCountChange = NO_COUNT_CHANGE,
  ): { replace: ReplaceUpdate; classification: UpdateClassification } | undefined {
    const info = this.templates.readDefinition(definition);
    const removed = new Set(counts.removed);
    // The members a group keeps or adds belong to the body with their group element (the body lists member 0).
    const listed = new Set(request.elements.map((element) => element.id));
    const members = memberIdsOfListedGroups(current, listed, info.elements).filter((id) => !removed.has(id));
    const next = Object.fromEntries(
      [...new Set([...listed, ...members])].map((id): [string, JsonObject] => [id, merged[id]?.properties ?? {}]),
    );
    const replace: ReplaceUpdate = {
      next,
      removeOrphans: info.removeOrphans === true,
      ...(removed.size > 0 ? { orphaned: [...removed] } : {}),
    };
    const classification = updateClassification({
      elements: current.elements,
      next: new Map(Object.entries(next)),
      templates: info.elements,
      removeOrphans: replace.removeOrphans,
      ...(removed.size > 0 ? { orphaned: removed } : {}),
    });
    if (!isReplacingUpdate(current.elements, classification)) {
      return undefined;
    }
    const problems = replacePhaseProblems(info.elements);
    if (problems.length > 0) {
      throw new DomainError('VALIDATION_FAILED', problems.join('\n'));
    }
    return { replace, classification };
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
    assertSameProject(source, target);
    const info = this.templates.readDefinition(target);
    // The target's groups expand as a create's do: the body lists one element per group.
    const expanded = expandedMigrationRequest(current, request, info.elements);
    const migrated = planMigration(current.elements, expanded.elements, {
      listedElements: info.listedElements,
      groups: new Set(info.elements.flatMap((template) => (template.group === undefined ? [] : [template.name]))),
      participantOf: (name) => target.elementStateMap[name]?.participantId ?? null,
    });
    const kept = Object.values(migrated).filter((element) => element.migrationState !== 'REMOVED');
    this.assertReferences(target, kept);
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
    planId?: string,
  ): Promise<void> {
    await this.orderTransaction(instanceId, async (store, session) => {
      const stored = await this.findInstance(store, instanceId, pathCompositionId);
      assertNotOwned(stored.value, 'ordered');
      const order = resolveStateChange(update, supersede ? supersedingKey(stored.value) : stored.value);
      await this.assertPlanOf(store, stored.value, order, planId);
      const superseding = supersede && supersedingKey(stored.value) !== stored.value;
      // A new revision, so a participant does not take the new order for a resend of the one it still runs.
      const found = superseding ? { ...stored, value: { ...stored.value, revisionId: this.ids.uuid() } } : stored;
      if (order === 'DEPLOY') {
        assertDeployable(found.value);
        await this.assertNestedPrimed(store, found.value.compositionId);
      }
      await this.startOrder(store, session, found, order);
      recordParentOrder(session, found.value, order, this.clock.now());
    });
  }

  async delete(pathCompositionId: string, instanceId: string, planId?: string): Promise<InstantiationResponse> {
    return this.orderTransaction(instanceId, async (store, session) => {
      const found = await this.findInstance(store, instanceId, pathCompositionId);
      assertNotOwned(found.value, 'deleted');
      checkOrderMayStart('DELETE', found.value);
      await this.assertPlanOf(store, found.value, 'DELETE', planId);
      await this.startOrder(store, session, found, 'DELETE');
      recordParentOrder(session, found.value, 'DELETE', this.clock.now());
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

  /** An order sent with a planId (beyond ONAP) starts only if nothing the plan was made from changed since. */
  private async assertPlanOf(
    store: Store,
    instance: AutomationComposition,
    order: InstanceOrder,
    planId: string | undefined,
  ): Promise<void> {
    if (planId === undefined) {
      return;
    }
    const definition = await this.definitionOf(store, instance.compositionId);
    assertPlanCurrent(planId, { instance, definitions: [definition], order, body: null });
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

  /** A deploy needs every definition its nested compositions name primed (400 naming each that is not). */
  private async assertNestedPrimed(store: Store, compositionId: string): Promise<void> {
    const definition = await this.definitionOf(store, compositionId);
    const root = nestingNodeOf({ ...definition, primed: true }, this.templates.readDefinition(definition));
    if (root.nested.length === 0) {
      return;
    }
    const nested = await loadNestedDefinitions(
      root,
      async (id) => (await store.definitions.find(id))?.value ?? null,
      this.templates,
    );
    assertNestedPrimed(root, (id) => nested.get(id), `deploy an instance of ${definition.name} ${definition.version}`);
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

  /** ONAP's checks on the body as sent (one element per node template), the references on its groups' members. */
  private validateAgainstDefinition(
    definition: CompositionDefinition,
    body: InstanceRequest,
    expanded: InstanceRequest,
  ): void {
    const info = this.templates.readDefinition(definition);
    validateInstanceElements(info.listedElements, body.elements);
    this.assertReferences(definition, expanded.elements);
  }

  /**
   * The references (get_attribute, get_property) in the element properties of the whole instance, checked with the
   * definition's rules whatever PROPERTY_VALIDATION says: they are edges of the graph the operations follow.
   */
  private assertReferences(
    definition: CompositionDefinition,
    elements: ReadonlyArray<{ id: string; definition: { name: string }; properties: Record<string, unknown> }>,
  ): void {
    const problems = checkInstanceReferences(
      this.templates.readDefinition(definition).elements,
      elements.map((element) => ({ id: element.id, name: element.definition.name, properties: element.properties })),
    );
    if (problems.length > 0) {
      throw new DomainError('VALIDATION_FAILED', formatProblems(problems), { problems });
    }
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

/** An instance stays in its project: its definition's project decides who may see and order it. */
function assertSameProject(source: CompositionDefinition, target: CompositionDefinition): void {
  const from = source.project ?? DEFAULT_PROJECT;
  const to = target.project ?? DEFAULT_PROJECT;
  if (from !== to) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `compositionTargetId: the definition ${target.compositionId} is in project ${to}, the instance in ${from}; an instance stays in its project`,
    );
  }
}
