import type { GroupDefinition } from './group-rules';
/*
 * Shapes of a TOSCA service template as ONAP ACM reads it. Every interface keeps an index signature because the
 * runtime stores and returns the document exactly as the user sent it (plus `metadata.compositionId`), so keys we do
 * not interpret must survive a round trip.
 */

/** `entry_schema` / `key_schema` of a property: the type of list entries or map keys/values. */
export interface ToscaSchemaDefinition {
  type?: string;
  type_version?: string;
  description?: string;
  constraints?: unknown[];
  entry_schema?: ToscaSchemaDefinition | null;
  [key: string]: unknown;
}

/** A property definition inside a data, node or policy type. */
export interface ToscaPropertyDefinition {
  type: string;
  type_version?: string;
  description?: string;
  required?: boolean;
  default?: unknown;
  constraints?: unknown[];
  metadata?: Record<string, unknown>;
  entry_schema?: ToscaSchemaDefinition | null;
  key_schema?: ToscaSchemaDefinition | null;
  [key: string]: unknown;
}

/** Common shape of data types, node types, policy types, capability and relationship types. */
export interface ToscaEntityType {
  derived_from?: string;
  version?: string;
  name?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  properties?: Record<string, ToscaPropertyDefinition>;
  [key: string]: unknown;
}

/** Aliases that name the role of a type definition at call sites. */
export type DataType = ToscaEntityType;
export type NodeType = ToscaEntityType;
export type PolicyType = ToscaEntityType;

/**
 * A node template: an AC element, the AC composition itself, or anything else (e.g. a legacy Participant node
 * template, which ACM ignores). Its key in `node_templates` is its name.
 */
export interface NodeTemplate {
  type: string;
  type_version?: string;
  version?: string;
  name?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  properties?: Record<string, unknown>;
  requirements?: unknown;
  capabilities?: unknown;
  [key: string]: unknown;
}

/** A policy in `topology_template.policies` (a list of single-key mappings name → policy). */
export interface PolicyTemplate {
  type: string;
  type_version?: string;
  version?: string;
  name?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  properties?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `topology_template`; only `node_templates` and `policies` are interpreted, `inputs` and the rest are kept. */
export interface TopologyTemplate {
  description?: string;
  inputs?: Record<string, unknown>;
  node_templates?: Record<string, NodeTemplate>;
  policies?: Array<Record<string, PolicyTemplate>>;
  [key: string]: unknown;
}

/** The TOSCA document commissioned as an automation composition definition. */
export interface ServiceTemplate {
  tosca_definitions_version: string;
  name?: string;
  version?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  data_types?: Record<string, DataType>;
  capability_types?: Record<string, ToscaEntityType>;
  node_types?: Record<string, NodeType>;
  relationship_types?: Record<string, ToscaEntityType>;
  policy_types?: Record<string, PolicyType>;
  topology_template?: TopologyTemplate;
  [key: string]: unknown;
}

/** `{name, version}` pair ONAP calls ToscaConceptIdentifier. */
export interface ConceptIdentifier {
  name: string;
  version: string;
}

/** Deploy/prepare/migrate ordering data the runtime needs for one element. */
export interface ElementStage {
  /** Stages in which the element takes part when the instance is prepared. */
  prepare: number[];
  /** Stages in which the element takes part when the instance is migrated. */
  migrate: number[];
}

/** What the runtime needs to know about one AC element node template. */
export interface ElementDefinitionInfo {
  /** Node template key; instance elements reference it as `definition.name`. */
  name: string;
  /** Node template `version` (`0.0.0` when absent); instance elements reference it as `definition.version`. */
  version: string;
  /** Node type name; priming matches it against the element types participants registered. */
  type: string;
  /** Node template `type_version`; priming matches it together with `type`. */
  typeVersion: string;
  /** `type` and the node types it derives from, nearest first (a wait condition is recognised by them). */
  types: string[];
  startPhase: number;
  stage: ElementStage;
  /** The node template's `properties`, as written (`{}` when absent). */
  properties: Record<string, unknown>;
  /** Element node template names this element must wait for (ACM-runtime extension, not in ONAP). */
  dependsOn: string[];
  /**
   * The names of its sensitive properties, top-level and nested (see sensitivePropertiesOf), when it has any: the
   * history masks the values references read from or write to them.
   */
  sensitive?: string[];
  /**
   * The properties whose change an UPDATE cannot apply in place (`metadata.updatable: false` on their definition):
   * changing one replaces the element. Absent when there are none (ACM-runtime extension, not in ONAP).
   */
  replaceOn?: string[];
  /** The node type says `metadata.createBeforeDestroy: true`: a replace deploys the new one first. Absent: false. */
  createBeforeDestroy?: true;
  /** The node template has a `count` (TOSCA 2.0): an instance holds that many members of it (see group-rules.ts). */
  group?: GroupDefinition;
  /**
   * The node template's `metadata.health_condition`, `health_bake` and `health_deadline`, as written, when it sets
   * any: its element's health gate (ACM-runtime extension, not in ONAP; the runtime checks and reads it).
   */
  gateMetadata?: Record<string, unknown>;
}

/** The parts of a valid definition that drive commissioning, priming and instance validation. */
export interface CompositionTemplateInfo {
  compositionNodeTemplate: ConceptIdentifier;
  /** Every element node template, in document order (ONAP builds its element state map from all of them). */
  elements: ElementDefinitionInfo[];
  /** `properties.elements` of the composition node template: what an instance must contain. */
  listedElements: ConceptIdentifier[];
  /** Template `metadata` (e.g. `primeTimeoutMs`), `{}` when absent. */
  metadata: Record<string, unknown>;
  /**
   * The composition node template says `metadata.removeOrphans: true`: elements an UPDATE leaves out of its body are
   * undeployed and deleted. Absent: an UPDATE keeps them unchanged (ONAP).
   */
  removeOrphans?: true;
}
