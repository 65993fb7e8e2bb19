/**
 * @acm/tosca — parses and validates TOSCA service templates the way ONAP ACM commissions them. Framework-free: the
 * runtime calls it from its use cases; nothing here knows about HTTP or persistence.
 */
export type { ParseResult, ToscaContentType } from './parse-service-template';
export { parseServiceTemplate } from './parse-service-template';
export type { ValidationOptions, ValidationResult } from './validate-service-template';
export { metadataTimeoutMs, validateServiceTemplate } from './validate-service-template';
export type { CompositionTypeNames } from './composition';
export { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE, isElementType, typeLineage } from './composition';
export type { PathSegment, ToscaProblem, ToscaRule } from './problem';
export { TOSCA_RULES, formatPath, formatProblems } from './problem';
export {
  MAX_NAME_LENGTH,
  MAX_VERSION_LENGTH,
  NAME_PATTERN,
  NULL_VERSION,
  SEMVER_PATTERN,
  isValidName,
  isValidVersion,
  nameProblem,
  versionProblem,
} from './naming';
export { TOSCA_PRIMITIVE_TYPES } from './type-references';
export { compositionIdOf, withCompositionId } from './template-metadata';
export type { ReplaceRules } from './replace-rules';
export { CREATE_BEFORE_DESTROY_KEY, REMOVE_ORPHANS_KEY, UPDATABLE_KEY, replaceRulesOf } from './replace-rules';
export type { SensitiveProperties } from './sensitive-properties';
export { NO_SENSITIVE_PROPERTIES, isSensitive, sensitivePropertiesOf } from './sensitive-properties';
export type { ElementPropertiesRequest, ResolvedElementProperties } from './validate-properties';
export { resolveElementProperties } from './validate-properties';
export type { CompositionDocsResult } from './composition-docs';
export { renderCompositionDocs } from './composition-docs';
export type {
  CompositionTemplateInfo,
  ConceptIdentifier,
  DataType,
  ElementDefinitionInfo,
  ElementStage,
  NodeTemplate,
  NodeType,
  PolicyTemplate,
  PolicyType,
  ServiceTemplate,
  ToscaEntityType,
  ToscaPropertyDefinition,
  ToscaSchemaDefinition,
  TopologyTemplate,
} from './service-template';
export type { CompositionGraph, GraphEdge, GraphFormat, GraphInstanceElement, GraphNode } from './composition-graph';
export {
  GRAPH_FORMATS,
  MAX_GRAPH_DEPTH,
  compositionGraph,
  toDot,
  toMermaid,
  withNestedGraph,
} from './composition-graph';
export type { DeclaredReference, ReferenceFunction } from './element-references';
export {
  REFERENCE_FUNCTIONS,
  SELF,
  describeReference,
  readReferences,
  referenceFunctionOf,
} from './element-references';
export type { ReferencingElement } from './instance-references';
export { checkInstanceReferences } from './instance-references';
export type { AdjustmentType, GroupDefinition, ScalingPolicy } from './group-rules';
export { ADJUSTMENT_TYPES, COUNT_KEY, boundsText, readGroupDefinition } from './group-rules';
