/**
 * What one participant replica knows about compositions and instances (ONAP's intermediary
 * CacheProvider): only its own element definitions and elements, filled from PRIME, DEPLOY and the
 * other orders, and overwritten by SYNC messages. Internal: the public views are deep copies.
 */
import type {
  AcElementDeploy,
  AcElementDto,
  AcElementRestart,
  AutomationCompositionElementDefinition,
  CompositionDto,
  CompositionElementDto,
  ParticipantRestartAc,
  PropertyMap,
  ToscaConceptIdentifier,
  Uuid,
} from '@acm/contracts';
import type { AcTypeState, DeployState, LockState, StateChangeResult } from '@acm/domain';

import { copy, definitionKey, parseDefinitionKey, startPhaseOf } from './element-properties';
import type { Composition, CompositionElement, Instance, InstanceElement } from './types';

export {
  copy,
  definitionKey,
  nextStageOf,
  parseDefinitionKey,
  previousStageOf,
  stagesOf,
  startPhaseOf,
} from './element-properties';

export interface CachedComposition {
  compositionId: Uuid;
  state: AcTypeState;
  revisionId?: Uuid;
  /** Keyed by {@link definitionKey}. */
  elements: Map<string, CompositionElement>;
}

export interface CachedInstance {
  instanceId: Uuid;
  compositionId?: Uuid;
  compositionTargetId?: Uuid;
  revisionId?: Uuid;
  deployState?: DeployState;
  lockState?: LockState;
  stateChangeResult: StateChangeResult;
  elements: Map<Uuid, InstanceElement>;
}

function compositionElement(
  compositionId: Uuid,
  definition: ToscaConceptIdentifier,
  inProperties: PropertyMap,
  outProperties: PropertyMap,
  type?: string,
  typeVersion?: string,
): CompositionElement {
  const element: CompositionElement = {
    compositionId,
    definition: { name: definition.name, version: definition.version },
    inProperties,
    outProperties,
    startPhase: startPhaseOf(inProperties),
  };
  if (type !== undefined) {
    element.type = type;
  }
  if (typeVersion !== undefined) {
    element.typeVersion = typeVersion;
  }
  return element;
}

/** A composition element built from an order's DTO when the participant never saw the PRIME. */
export function compositionElementFromDto(
  dto: CompositionElementDto | undefined,
  compositionId: Uuid,
  definition: ToscaConceptIdentifier,
): CompositionElement {
  return compositionElement(
    dto?.compositionId ?? compositionId,
    dto?.elementDefinitionId ?? definition,
    copy(dto?.inProperties ?? {}),
    copy(dto?.outProperties ?? {}),
  );
}

/** The element id an order DTO is about (target first: deploy-like orders only fill the target). */
export function dtoElementId(dto: AcElementDto): Uuid | undefined {
  return dto.instanceElementTarget?.elementId ?? dto.instanceElement?.elementId;
}

/** The element definition an order DTO names. */
export function dtoDefinition(dto: AcElementDto): ToscaConceptIdentifier | undefined {
  return dto.compositionElementTarget?.elementDefinitionId ?? dto.compositionElement?.elementDefinitionId;
}

export class ParticipantCache {
  readonly compositions = new Map<Uuid, CachedComposition>();
  readonly instances = new Map<Uuid, CachedInstance>();

  /**
   * Stores (replacing) a composition from PRIME / SYNC element definitions and/or a PRIME's CompositionDto.
   * Definition outProperties already known are kept unless the message brings its own.
   */
  storeComposition(
    compositionId: Uuid,
    state: AcTypeState,
    definitions: readonly AutomationCompositionElementDefinition[],
    dto: CompositionDto | undefined,
    revisionId: Uuid | undefined,
  ): CachedComposition {
    const previous = this.compositions.get(compositionId);
    const elements = new Map<string, CompositionElement>();
    for (const definition of definitions) {
      const template = definition.automationCompositionElementToscaNodeTemplate;
      const key = definitionKey(definition.acElementDefinitionId);
      const element = compositionElement(
        compositionId,
        definition.acElementDefinitionId,
        copy(template?.properties ?? {}),
        copy(definition.outProperties ?? previous?.elements.get(key)?.outProperties ?? {}),
        template?.type,
        template?.type_version,
      );
      if (template?.metadata !== undefined) {
        element.metadata = copy(template.metadata);
      }
      elements.set(key, element);
    }
    const keys = new Set([...Object.keys(dto?.inPropertiesMap ?? {}), ...Object.keys(dto?.outPropertiesMap ?? {})]);
    for (const key of keys) {
      const inProperties = dto?.inPropertiesMap?.[key];
      const outProperties = dto?.outPropertiesMap?.[key];
      const known = elements.get(key);
      if (known === undefined) {
        elements.set(
          key,
          compositionElement(
            compositionId,
            parseDefinitionKey(key),
            copy(inProperties ?? {}),
            copy(outProperties ?? previous?.elements.get(key)?.outProperties ?? {}),
          ),
        );
      } else if (Object.keys(known.inProperties).length === 0 && inProperties !== undefined) {
        known.inProperties = copy(inProperties);
        known.startPhase = startPhaseOf(known.inProperties);
      }
    }
    const stored: CachedComposition = { compositionId, state, elements };
    if (revisionId !== undefined) {
      stored.revisionId = revisionId;
    }
    this.compositions.set(compositionId, stored);
    return stored;
  }

  compositionElement(
    compositionId: Uuid | undefined,
    definition: ToscaConceptIdentifier,
  ): CompositionElement | undefined {
    return compositionId === undefined
      ? undefined
      : this.compositions.get(compositionId)?.elements.get(definitionKey(definition));
  }

  /**
   * The instance entry for a DEPLOY (or PREPARE): (re)created when `recreate` or unknown, keeping the
   * outProperties, operational and use states of elements already known; elements are taken from the
   * legacy element list, completed by the DTOs. Returns the ids of the elements the order names.
   */
  upsertFromOrder(
    instanceId: Uuid,
    compositionId: Uuid | undefined,
    revisionId: Uuid | undefined,
    deploys: readonly AcElementDeploy[],
    dtos: readonly AcElementDto[],
    recreate: boolean,
  ): { instance: CachedInstance; elementIds: Uuid[] } {
    const previous = this.instances.get(instanceId);
    const instance: CachedInstance =
      previous !== undefined && !recreate
        ? previous
        : { instanceId, stateChangeResult: 'NO_ERROR', elements: new Map<Uuid, InstanceElement>() };
    if (previous !== undefined && recreate) {
      if (previous.compositionTargetId !== undefined) {
        instance.compositionTargetId = previous.compositionTargetId;
      }
      instance.deployState = previous.deployState ?? 'UNDEPLOYED';
      instance.lockState = previous.lockState ?? 'NONE';
    }
    instance.compositionId = compositionId ?? previous?.compositionId;
    if (instance.compositionId === undefined) {
      delete instance.compositionId;
    }
    if (revisionId !== undefined) {
      instance.revisionId = revisionId;
    }
    const dtoById = new Map<Uuid, AcElementDto>();
    for (const dto of dtos) {
      const id = dtoElementId(dto);
      if (id !== undefined) {
        dtoById.set(id, dto);
      }
    }
    const elementIds: Uuid[] = [];
    const upsert = (
      id: Uuid,
      definition: ToscaConceptIdentifier,
      properties: PropertyMap | undefined,
      deploy?: AcElementDeploy,
    ): void => {
      const known = instance.elements.get(id) ?? previous?.elements.get(id);
      const dto = dtoById.get(id);
      const element: InstanceElement = {
        instanceId,
        id,
        definition: { name: definition.name, version: definition.version },
        properties: copy(properties ?? known?.properties ?? {}),
        outProperties: copy(known?.outProperties ?? dto?.instanceElementTarget?.outProperties ?? {}),
        deployState: known?.deployState ?? 'UNDEPLOYED',
        lockState: known?.lockState ?? 'NONE',
      };
      const migrationState = deploy?.migrationState ?? known?.migrationState;
      if (migrationState !== undefined) {
        element.migrationState = migrationState;
      }
      if (known?.operationalState !== undefined) {
        element.operationalState = known.operationalState;
      }
      if (known?.useState !== undefined) {
        element.useState = known.useState;
      }
      instance.elements.set(id, element);
      if (!elementIds.includes(id)) {
        elementIds.push(id);
      }
    };
    for (const deploy of deploys) {
      upsert(
        deploy.id,
        deploy.definition,
        deploy.properties ?? dtoById.get(deploy.id)?.instanceElementTarget?.inProperties,
        deploy,
      );
    }
    for (const [id, dto] of dtoById) {
      const definition = dtoDefinition(dto);
      if (!elementIds.includes(id) && definition !== undefined) {
        upsert(id, definition, dto.instanceElementTarget?.inProperties);
      }
    }
    this.instances.set(instanceId, instance);
    return { instance, elementIds };
  }

  /** Replaces an instance with a SYNC's view of it (only this participant's elements). */
  syncInstance(
    restart: ParticipantRestartAc,
    elements: readonly AcElementRestart[],
    compositionId: Uuid | undefined,
  ): void {
    const previous = this.instances.get(restart.automationCompositionId);
    const instance: CachedInstance = {
      instanceId: restart.automationCompositionId,
      stateChangeResult: restart.stateChangeResult ?? 'NO_ERROR',
      elements: new Map<Uuid, InstanceElement>(),
    };
    const composition = compositionId ?? previous?.compositionId;
    if (composition !== undefined) {
      instance.compositionId = composition;
    }
    if (restart.compositionTargetId !== undefined) {
      instance.compositionTargetId = restart.compositionTargetId;
    }
    if (restart.revisionId !== undefined) {
      instance.revisionId = restart.revisionId;
    }
    if (restart.deployState !== undefined) {
      instance.deployState = restart.deployState;
    }
    if (restart.lockState !== undefined) {
      instance.lockState = restart.lockState;
    }
    for (const element of elements) {
      const cached: InstanceElement = {
        instanceId: instance.instanceId,
        id: element.id,
        definition: { name: element.definition.name, version: element.definition.version },
        properties: copy(element.properties ?? {}),
        outProperties: copy(element.outProperties ?? {}),
        deployState: element.deployState ?? 'UNDEPLOYED',
        lockState: element.lockState ?? 'NONE',
      };
      if (element.migrationState !== undefined) {
        cached.migrationState = element.migrationState;
      }
      if (element.operationalState !== undefined) {
        cached.operationalState = element.operationalState;
      }
      if (element.useState !== undefined) {
        cached.useState = element.useState;
      }
      instance.elements.set(element.id, cached);
    }
    this.instances.set(instance.instanceId, instance);
  }

  /** Removes one element; the instance goes too when it has no element of this participant left. */
  removeElement(instanceId: Uuid, elementId: Uuid): void {
    const instance = this.instances.get(instanceId);
    if (instance !== undefined) {
      instance.elements.delete(elementId);
      if (instance.elements.size === 0) {
        this.instances.delete(instanceId);
      }
    }
  }

  /** Public copy of a composition. */
  compositionView(composition: CachedComposition): Composition {
    const view: Composition = {
      compositionId: composition.compositionId,
      state: composition.state,
      elements: [...composition.elements.values()].map((element) => copy(element)),
    };
    if (composition.revisionId !== undefined) {
      view.revisionId = composition.revisionId;
    }
    return view;
  }

  /** The instance's states: its elements' common state, else the instance's own (reads only, copies nothing). */
  instanceStates(instance: CachedInstance): Pick<Instance, 'deployState' | 'lockState'> {
    const common = <T>(pick: (element: InstanceElement) => T, fallback: T): T => {
      let seen = false;
      let only: T | undefined;
      for (const element of instance.elements.values()) {
        const value = pick(element);
        if (seen && value !== only) {
          return fallback;
        }
        seen = true;
        only = value;
      }
      return only ?? fallback;
    };
    return {
      deployState: common((element) => element.deployState, instance.deployState ?? 'UNDEPLOYED'),
      lockState: common((element) => element.lockState, instance.lockState ?? 'NONE'),
    };
  }

  /** Public copy of an instance; instance states default to the elements' common state. */
  instanceView(instance: CachedInstance): Instance {
    const elements = [...instance.elements.values()].map((element) => copy(element));
    const view: Instance = {
      instanceId: instance.instanceId,
      ...this.instanceStates(instance),
      stateChangeResult: instance.stateChangeResult,
      elements,
    };
    if (instance.compositionId !== undefined) {
      view.compositionId = instance.compositionId;
    }
    if (instance.compositionTargetId !== undefined) {
      view.compositionTargetId = instance.compositionTargetId;
    }
    if (instance.revisionId !== undefined) {
      view.revisionId = instance.revisionId;
    }
    return view;
  }
}
