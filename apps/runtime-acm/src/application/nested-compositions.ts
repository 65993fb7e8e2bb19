import { createHash } from 'node:crypto';
import type { AutomationComposition, CompositionDefinition, InstanceOrder, StoredNestedState } from '@acm/domain';
import {
  DomainError,
  OperationSessions,
  ReadModels,
  UnitOfWork,
  childUpdateOf,
  childrenToOrder,
  isNestedCompositionTemplate,
  nestedSettingsOf,
} from '@acm/domain';
import type { NestedCompositionSettings } from '@acm/domain';
import { Injectable, Logger } from '@nestjs/common';
import { OperationInterventions } from '../engine/operation-interventions';
import { TemplateReader } from '../engine/template-reader';
import { asInstanceOperation } from '../engine/running-operation';
import { InstantiationService } from './instantiation.service';
import type { NestedOwner } from './nested-ownership';
import { NESTED_IN_METADATA, asParentOf, ownerOf } from './nested-ownership';

/** Running operations read at start (an in-flight set, indexed; never every instance). */
const RESTART_SCAN_LIMIT = 10_000;

/** A stable UUID of a name (so a child, and its elements, made twice are the same ones). */
function uuidOf(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The child instance of a parent's nested element. */
export function childInstanceIdOf(parentInstanceId: string, elementId: string): string {
  return uuidOf('nested', parentInstanceId, elementId);
}

const STATE_ORDERS: Partial<Record<InstanceOrder, 'deployOrder' | 'lockOrder'>> = {
  DEPLOY: 'deployOrder',
  UNDEPLOY: 'deployOrder',
  LOCK: 'lockOrder',
  UNLOCK: 'lockOrder',
};

/** Whether the child is where the order takes it. */
function reached(order: InstanceOrder, child: AutomationComposition | null): boolean {
  switch (order) {
    case 'DEPLOY':
      return child !== null && child.deployState === 'DEPLOYED';
    case 'UNDEPLOY':
      return child === null || child.deployState === 'UNDEPLOYED';
    case 'DELETE':
      return child === null;
    case 'LOCK':
      return child === null || child.lockState === 'LOCKED' || child.deployState === 'UNDEPLOYED';
    case 'UNLOCK':
      return child === null || child.lockState === 'UNLOCKED' || child.deployState === 'UNDEPLOYED';
    default:
      // An update is judged on the child's properties (see step); a migration, a prepare or a review of the parent
      // does not reach the child.
      return true;
  }
}

/**
 * The I/O of nested compositions: for each nested element whose parent's operation waits for its child, make the
 * child instance (DEPLOY), order it through the ordinary application path, and, once the child's operation has
 * ended, tell the parent's machine (CHILD_ENDED). It decides nothing the machine decides, and it is idempotent:
 * it reads the child's state each time, so a lost event, a restart or another replica cannot wedge a parent.
 */
@Injectable()
export class NestedCompositions {
  private readonly logger = new Logger('Nesting');

  constructor(
    private readonly reads: ReadModels,
    private readonly sessions: OperationSessions,
    private readonly interventions: OperationInterventions,
    private readonly instantiation: InstantiationService,
    private readonly templates: TemplateReader,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** The parent of an instance, read from its metadata; null when nobody nests it (or it is gone). */
  async parentOf(instanceId: string): Promise<NestedOwner | null> {
    const found = await this.reads.read((model) => model.instances.find(instanceId));
    return found === null ? null : ownerOf(found.value);
  }

  /**
   * Drives every child the parent's running operation waits for, one step each; says whether the parent still
   * waits for a child, and which children it drove.
   */
  async reconcile(parentInstanceId: string): Promise<{ waiting: boolean; children: string[] }> {
    const loaded = await this.reads.read(async (model) => {
      const found = await model.instances.find(parentInstanceId);
      if (found === null) {
        return null;
      }
      const running = asInstanceOperation(await model.operations.findRunning(parentInstanceId));
      const definition = (await model.definitions.find(found.value.compositionId))?.value ?? null;
      return { parent: found.value, running, definition };
    });
    if (loaded === null || loaded.definition === null || loaded.running === null) {
      return { waiting: false, children: [] };
    }
    const { parent, running, definition } = loaded;
    const templateProperties = this.nestedTemplateProperties(definition);
    const waiting = childrenToOrder(parent, running);
    for (const { elementId, state } of waiting) {
      const element = parent.elements[elementId]!;
      const properties = templateProperties.get(element.definition.name);
      // The instance's element properties over the node template's: an UPDATE of the parent can change them.
      const settings =
        properties === undefined ? undefined : nestedSettingsOf({ ...properties, ...element.properties }).settings;
      if (settings !== undefined && settings !== null) {
        await this.step(parent, elementId, state, settings);
      }
    }
    return {
      waiting: waiting.length > 0,
      children: waiting.map(({ elementId }) => childInstanceIdOf(parentInstanceId, elementId)),
    };
  }

  /** The instances with a running operation now: after a restart, the sweep looks at each once for a child to drive. */
  async inTransition(): Promise<string[]> {
    const running = await this.unitOfWork.read((store) => store.operations.listRunning(RESTART_SCAN_LIMIT));
    return running.filter((operation) => operation.targetKind === 'INSTANCE').map((operation) => operation.targetId);
  }

  private nestedTemplateProperties(definition: CompositionDefinition): Map<string, Readonly<Record<string, unknown>>> {
    return new Map(
      this.templates
        .readDefinition(definition)
        .elements.filter(isNestedCompositionTemplate)
        .map((element) => [element.name, element.properties]),
    );
  }

  private async step(
    parent: AutomationComposition,
    elementId: string,
    state: StoredNestedState,
    settings: NestedCompositionSettings,
  ): Promise<void> {
    const owner: NestedOwner = { instanceId: parent.instanceId, elementId };
    const childId = childInstanceIdOf(parent.instanceId, elementId);
    const read = await this.reads.read(async (model) => {
      const found = await model.instances.find(childId);
      const running = found === null ? null : await model.operations.findRunning(childId);
      return { child: found?.value ?? null, running: running !== null };
    });
    const { child, running } = read;
    if (running) {
      return;
    }
    // A failure of the child after this order was set going ends it; an older one (before a retry) is ordered again.
    const failedSince = child !== null && child.stateChangeResult === 'FAILED' && child.lastMsg >= state.startedAt;
    if (state.order === 'UPDATE' && child !== null && !failedSince) {
      // The child holds the new properties once its own update is accepted; it is done when that update ended.
      const update = childUpdateOf(child, settings.elementProperties);
      if (update === null) {
        await this.tellParent(parent, owner, childId, state, true, null, child, settings);
      } else {
        await asParentOf(owner, () => this.update(parent, owner, child, update)).catch(async (error: unknown) => {
          if (!(error instanceof DomainError) || error.code === 'CONCURRENT_MODIFICATION') {
            throw error;
          }
          const why = `child ${childId} cannot run UPDATE: ${error.message}`;
          await this.tellParent(parent, owner, childId, state, false, why, child, settings);
        });
      }
      return;
    }
    if (reached(state.order, child)) {
      await this.tellParent(parent, owner, childId, state, true, null, child, settings);
      return;
    }
    if (child !== null && failedSince) {
      const failed = Object.values(child.elements).filter((element) => element.message !== null);
      const why = failed.map((element) => `${element.definition.name}: ${element.message}`).join('; ');
      await this.tellParent(
        parent,
        owner,
        childId,
        state,
        false,
        `child ${childId} failed ${state.order}: ${why}`,
        child,
        settings,
      );
      return;
    }
    try {
      await asParentOf(owner, () => this.order(parent, owner, childId, child, state.order, settings));
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === 'CONCURRENT_MODIFICATION') {
        throw error;
      }
      // A child that cannot be made or ordered (its definition not primed, a participant offline) fails the element.
      const why = `child ${childId} cannot run ${state.order}: ${error.message}`;
      await this.tellParent(parent, owner, childId, state, false, why, child, settings);
    }
  }

  private async order(
    parent: AutomationComposition,
    owner: NestedOwner,
    childId: string,
    child: AutomationComposition | null,
    order: InstanceOrder,
    settings: NestedCompositionSettings,
  ): Promise<void> {
    let compositionId = child?.compositionId ?? settings.compositionId;
    if (child === null) {
      if (order !== 'DEPLOY') {
        return;
      }
      compositionId = await this.create(parent, owner, childId, settings);
    } else if (order === 'DEPLOY') {
      // A child made by an earlier deploy is deployed with the properties the parent's element gives it now (an
      // UPDATE of the undeployed parent may have changed them): an update of an undeployed instance only stores them.
      const update = childUpdateOf(child, settings.elementProperties);
      if (update !== null) {
        await this.update(parent, owner, child, update);
      }
    }
    const field = STATE_ORDERS[order];
    if (field !== undefined) {
      const update = { deployOrder: 'NONE', lockOrder: 'NONE', subOrder: 'NONE', [field]: order } as const;
      await this.instantiation.changeState(compositionId, childId, update);
    } else if (order === 'DELETE') {
      await this.instantiation.delete(compositionId, childId);
    }
    this.logger.log(`Instance ${parent.instanceId} element ${owner.elementId}: ${order} ordered on child ${childId}`);
  }

  /** Orders the child's UPDATE: its elements with the properties the parent's element now gives them. */
  private async update(
    parent: AutomationComposition,
    owner: NestedOwner,
    child: AutomationComposition,
    properties: Record<string, Record<string, unknown>>,
  ): Promise<void> {
    await this.instantiation.update(child.compositionId, {
      instanceId: child.instanceId,
      compositionId: child.compositionId,
      name: child.name,
      version: child.version,
      description: child.description,
      derivedFrom: child.derivedFrom,
      metadata: child.metadata,
      elements: Object.values(child.elements).map((element) => ({
        id: element.id,
        definition: element.definition,
        description: element.description,
        properties: (properties[element.id] ?? {}) as Record<string, never>,
      })),
    });
    this.logger.log(
      `Instance ${parent.instanceId} element ${owner.elementId}: UPDATE ordered on child ${child.instanceId}`,
    );
  }

  /** Makes the child instance: one element per element node template of the child definition. */
  private async create(
    parent: AutomationComposition,
    owner: NestedOwner,
    childId: string,
    settings: NestedCompositionSettings,
  ): Promise<string> {
    const definition = await this.reads.read((model) => model.definitions.find(settings.compositionId));
    if (definition === null) {
      throw new DomainError('NOT_FOUND', `Nested composition definition ${settings.compositionId} not found`);
    }
    const info = this.templates.readDefinition(definition.value);
    const parentElement = parent.elements[owner.elementId]!;
    await this.instantiation.create(
      settings.compositionId,
      {
        compositionId: settings.compositionId,
        name: `${parent.name}.${parentElement.definition.name}`,
        version: parent.version,
        description: `Nested in element ${owner.elementId} of instance ${parent.instanceId}`,
        derivedFrom: null,
        metadata: { [NESTED_IN_METADATA]: { instanceId: owner.instanceId, elementId: owner.elementId } },
        elements: info.listedElements.map((listed) => ({
          id: uuidOf('nested-element', childId, listed.name),
          definition: { name: listed.name, version: listed.version },
          description: null,
          properties: { ...(settings.elementProperties[listed.name] ?? {}) } as Record<string, never>,
        })),
      },
      childId,
    );
    return settings.compositionId;
  }

  private async tellParent(
    parent: AutomationComposition,
    owner: NestedOwner,
    childId: string,
    state: StoredNestedState,
    result: boolean,
    message: string | null,
    child: AutomationComposition | null,
    settings: NestedCompositionSettings,
  ): Promise<void> {
    const outputs: Record<string, unknown> = {};
    if (child !== null) {
      const byName = new Map(Object.values(child.elements).map((element) => [element.definition.name, element]));
      for (const [name, output] of Object.entries(settings.outputs)) {
        const value = byName.get(output.element)?.outProperties[output.attribute];
        if (value !== undefined) {
          outputs[name] = value;
        }
      }
    }
    await this.sessions.transaction({ instanceIds: [parent.instanceId], messageIds: [] }, async (session) => {
      const found = await session.lockInstance(parent.instanceId);
      const definition = found === null ? null : await session.definition(found.value.compositionId);
      if (found === null || definition === null) {
        return;
      }
      await this.interventions.childEnded(session, found, definition.value, {
        kind: 'CHILD_ENDED',
        elementId: owner.elementId,
        childInstanceId: childId,
        operationId: state.operationId,
        result,
        message,
        outputs,
      });
    });
  }
}
