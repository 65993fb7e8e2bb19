/**
 * Nested structures carried inside participant messages (ONAP's nested message structures), with
 * ONAP's JSON field names. Optional (`?`) means ONAP may omit the field (it never writes nulls).
 */
import type { DeployOrder, DeployState, ElementState, LockState, MigrationState, StateChangeResult } from '@acm/domain';

/** A UUID in canonical 8-4-4-4-12 hex form; decoded ids are lower-cased as Java's UUID prints them. */
export type Uuid = string;

/** Free-form JSON object: TOSCA properties, element in/out properties. Opaque to the protocol. */
export type PropertyMap = Record<string, unknown>;

/** TOSCA `{name, version}` pair naming a node template (an element definition). */
export interface ToscaConceptIdentifier {
  name: string;
  version: string;
}

/**
 * A TOSCA node template as ONAP serializes it (snake_case keys such as `type_version`). Carried whole;
 * the protocol only relies on it being an object.
 */
export interface ToscaNodeTemplateJson {
  type?: string;
  type_version?: string;
  version?: string;
  name?: string;
  description?: string;
  metadata?: PropertyMap;
  properties?: PropertyMap;
  [key: string]: unknown;
}

/** An element type a participant can run (REGISTER / STATUS `participantSupportedElementType` entries). */
export interface ParticipantSupportedElementType {
  /** ONAP draws a random id per type and start-up; not stable across restarts. */
  id?: Uuid;
  typeName: string;
  typeVersion: string;
}

/** One element of a deploy-like order (legacy list kept by ONAP next to the DTO list). */
export interface AcElementDeploy {
  id: Uuid;
  definition: ToscaConceptIdentifier;
  orderedState?: DeployOrder;
  migrationState?: MigrationState;
  properties?: PropertyMap;
}

/** The elements of one participant in a deploy / update / migrate / prepare order. */
export interface ParticipantDeploy {
  participantId: Uuid;
  acElementList: AcElementDeploy[];
}

/** One element definition of a composition, as sent to its participant when priming or syncing. */
export interface AutomationCompositionElementDefinition {
  acElementDefinitionId: ToscaConceptIdentifier;
  automationCompositionElementToscaNodeTemplate?: ToscaNodeTemplateJson;
  outProperties?: PropertyMap;
}

/** The element definitions one participant owns in a composition. */
export interface ParticipantDefinition {
  participantId: Uuid;
  automationCompositionElementDefinitionList: AutomationCompositionElementDefinition[];
}

/**
 * The composition (definition) properties a participant needs: both maps are keyed by the element
 * definition id written as the string `"<name> <version>"` (space separated, an ONAP quirk).
 */
export interface CompositionDto {
  compositionId: Uuid;
  inPropertiesMap?: Record<string, PropertyMap>;
  outPropertiesMap?: Record<string, PropertyMap>;
}

/** PRIME `primeDtoList` entry: the composition DTO meant for one participant. */
export interface ParticipantPrimeDto {
  participantId: Uuid;
  compositionDto: CompositionDto;
}

/** Composition-side view of one element handed to the participant's listener. */
export interface CompositionElementDto {
  compositionId?: Uuid;
  elementDefinitionId?: ToscaConceptIdentifier;
  /** The node template's properties. */
  inProperties?: PropertyMap;
  /** The definition's outProperties for this element. */
  outProperties?: PropertyMap;
  state?: ElementState;
}

/** Instance-side view of one element handed to the participant's listener. */
export interface InstanceElementDto {
  instanceId?: Uuid;
  elementId?: Uuid;
  /** The element's `properties`. */
  inProperties?: PropertyMap;
  outProperties?: PropertyMap;
  state?: ElementState;
}

/**
 * Source and target views of one element. Which members are present depends on the order
 * (ONAP's rules for the DTO lists): deploy-like orders fill `compositionElement` + `instanceElementTarget`,
 * update adds the old `instanceElement`, migrate fills all four.
 */
export interface AcElementDto {
  compositionElement?: CompositionElementDto;
  instanceElement?: InstanceElementDto;
  compositionElementTarget?: CompositionElementDto;
  instanceElementTarget?: InstanceElementDto;
}

/** The element DTOs of one participant in an order. */
export interface ParticipantDto {
  participantId: Uuid;
  elementDtos: AcElementDto[];
}

/** One element of an instance in a SYNC message (cache state for a participant replica). */
export interface AcElementRestart {
  id: Uuid;
  definition: ToscaConceptIdentifier;
  participantId?: Uuid;
  deployState?: DeployState;
  lockState?: LockState;
  migrationState?: MigrationState;
  operationalState?: string;
  useState?: string;
  properties?: PropertyMap;
  outProperties?: PropertyMap;
}

/** One instance in a SYNC message's `automationcompositionList`. */
export interface ParticipantRestartAc {
  automationCompositionId: Uuid;
  deployState?: DeployState;
  lockState?: LockState;
  stateChangeResult?: StateChangeResult;
  revisionId?: Uuid;
  compositionTargetId?: Uuid;
  acElementList?: AcElementRestart[];
}

/** Per-element result in a deploy/state-change ack (`automationCompositionResultMap` values). */
export interface AcElementDeployAck {
  deployState: DeployState;
  lockState: LockState;
  operationalState?: string;
  useState?: string;
  outProperties?: PropertyMap;
  /** ONAP's success flag for the element; informational (the ack's `stateChangeResult` decides). */
  result?: boolean;
  message?: string;
}

/** PRIME_ACK `outPropertiesList` entry: definition outProperties reported by the participant. */
export interface ElementDefinitionOutProperties {
  elementDefinitionId: ToscaConceptIdentifier;
  outProperties?: PropertyMap;
}

/**
 * What a participant's `observe` hook found of one element: an extension of this runtime that ONAP's participants
 * never send (without it, health stays Unknown and nothing is compared, ONAP's behaviour).
 */
export interface ElementObservationInfo {
  /** False: the element is gone. */
  present: boolean;
  healthy: boolean;
  reason?: string;
  /** The element's properties as observed, compared with the desired ones for drift. */
  properties?: PropertyMap;
}

/** STATUS element report: runtime information a participant pushes outside any order. */
export interface AutomationCompositionElementInfo {
  automationCompositionElementId: Uuid;
  deployState?: DeployState;
  lockState?: LockState;
  operationalState?: string;
  useState?: string;
  outProperties?: PropertyMap;
  /** This runtime's extension: the element as the participant observed it. */
  observation?: ElementObservationInfo;
}

/** STATUS instance report. */
export interface AutomationCompositionInfo {
  automationCompositionId: Uuid;
  deployState?: DeployState;
  lockState?: LockState;
  elements?: AutomationCompositionElementInfo[];
}
