import type {
  AcTypeState,
  DeployState,
  LockState,
  MigrationState,
  ParticipantState,
  StateChangeResult,
  SubState,
} from './states';

/** A TOSCA concept identifier: a node template or element definition by name and version. */
export interface ConceptId {
  readonly name: string;
  readonly version: string;
}

/** JSON object as stored and returned; the runtime never interprets user properties beyond known keys. */
export type JsonObject = Record<string, unknown>;

/** Per element node template: which participant serves it and how far priming got (ONAP NodeTemplateState). */
export interface NodeTemplateState {
  nodeTemplateStateId: string;
  participantId: string | null;
  nodeTemplateId: ConceptId;
  state: AcTypeState;
  message: string | null;
  outProperties: JsonObject;
}

/** A commissioned TOSCA service template and its lifecycle (ONAP AutomationCompositionDefinition). */
export interface CompositionDefinition {
  compositionId: string;
  /** Service-template name and version, used by the `name`/`version` filters. */
  name: string;
  version: string;
  serviceTemplate: JsonObject;
  state: AcTypeState;
  stateChangeResult: StateChangeResult;
  /** Epoch milliseconds of the last state change. */
  lastMsg: number;
  /** Keyed by node-template name. */
  elementStateMap: Record<string, NodeTemplateState>;
  revisionId: string;
  /** The project it belongs to, and its instances with it; absent: the default project. */
  project?: string;
}

/** One element of an instance (ONAP AutomationCompositionElement). */
export interface InstanceElement {
  id: string;
  definition: ConceptId;
  participantId: string | null;
  deployState: DeployState;
  lockState: LockState;
  subState: SubState;
  migrationState: MigrationState;
  stage: number | null;
  operationalState: string | null;
  useState: string | null;
  description: string | null;
  message: string | null;
  properties: JsonObject;
  outProperties: JsonObject;
}

/** An instance of a composition (ONAP AutomationComposition). */
export interface AutomationComposition {
  instanceId: string;
  compositionId: string;
  compositionTargetId: string | null;
  name: string;
  version: string;
  description: string | null;
  derivedFrom: string | null;
  metadata: JsonObject | null;
  precheck: boolean | null;
  deployState: DeployState;
  lockState: LockState;
  subState: SubState;
  stateChangeResult: StateChangeResult;
  phase: number | null;
  /** Epoch milliseconds of the last state change. */
  lastMsg: number;
  revisionId: string;
  elements: Record<string, InstanceElement>;
}

export interface SupportedElementType {
  id: string;
  typeName: string;
  typeVersion: string;
}

export interface ParticipantReplica {
  replicaId: string;
  participantState: ParticipantState;
  /** Epoch milliseconds of the last message from this replica. */
  lastMsg: number;
}

export interface Participant {
  participantId: string;
  participantSupportedElementTypes: Record<string, SupportedElementType>;
  replicas: Record<string, ParticipantReplica>;
}
