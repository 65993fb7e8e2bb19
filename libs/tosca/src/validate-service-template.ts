import { excerpt } from '@acm/input-guards';
import type { CompositionTypeNames, RecordedElements } from './composition';
import {
  checkCompositionCount,
  classifyNodeTemplates,
  nodeTemplateVersion,
  readElements,
  readListedElements,
} from './composition';
import type { Checked } from './element-properties';
import type { RequirementTypes } from './element-requirements';
import { asNonNegativeInteger } from './element-properties';
import { checkName, checkOptionalVersion } from './entity-checks';
import type { Mapping } from './guards';
import { describeKind, isMapping } from './guards';
import type { ToscaProblem } from './problem';
import { problem } from './problem';
import type { CompositionTemplateInfo, ServiceTemplate } from './service-template';
import { sensitivePropertiesOf } from './sensitive-properties';
import type { NodeTemplateEntry } from './validate-topology';
import { checkNodeTemplates, checkPolicies, indexNodeTemplates } from './validate-topology';
import { checkTypes, indexTypes } from './validate-types';
import { checkReplaceMetadata, readRemoveOrphans } from './replace-rules';

/**
 * The element and composition type names come from runtime configuration, as in ONAP. A stored definition passes
 * `elementNames`, the element node templates recorded at commissioning: its node templates are then classified by
 * those names, so a later change of the configured type names never makes a commissioned definition unreadable.
 */
export type ValidationOptions = CompositionTypeNames & Partial<RecordedElements>;

/** Either what the runtime needs from a commissionable template, or every reason it is not commissionable. */
export type ValidationResult =
  { ok: true; definition: CompositionTemplateInfo } | { ok: false; problems: ToscaProblem[] };

/** Metadata keys holding a prime/deprime supervision timeout in milliseconds. */
const TIMEOUT_METADATA_KEYS = ['primeTimeoutMs', 'deprimeTimeoutMs'] as const;

/**
 * Decides whether a parsed body may be commissioned, applying ONAP's commissioning rules plus this runtime's checks
 * on element ordering data, and returns every problem at once so a user can fix a template in one round trip.
 * On success it returns what commissioning, priming and instance validation need, already normalised.
 */
export function validateServiceTemplate(template: unknown, options: ValidationOptions): ValidationResult {
  if (!isMapping(template)) {
    const message = `The body is ${describeKind(template)}, not a TOSCA service template (a mapping with topology_template.node_templates)`;
    return { ok: false, problems: [problem([], 'shape', message)] };
  }
  const types = indexTypes(template);
  const nodeTemplates = indexNodeTemplates(template);
  const metadata = readMetadata(template);
  const problems: ToscaProblem[] = [
    ...checkHeader(template),
    ...types.problems,
    ...checkTypes(types.index),
    ...nodeTemplates.problems,
    ...checkNodeTemplates(nodeTemplates.entries ?? [], types.index),
    ...checkPolicies(template, types.index),
    ...metadata.problems,
  ];
  if (nodeTemplates.entries === undefined) {
    return { ok: false, problems };
  }
  const nodeTypes = isMapping(template['node_types']) ? template['node_types'] : undefined;
  const relationshipTypes = isMapping(template['relationship_types']) ? template['relationship_types'] : undefined;
  const composition = readComposition(nodeTemplates.entries, { nodeTypes, relationshipTypes }, options);
  problems.push(...checkReplaceMetadata(nodeTypes), ...composition.problems);
  if (problems.length > 0 || composition.value === undefined) {
    return { ok: false, problems };
  }
  const elements = composition.value.elements.map((element) => {
    const sensitive = sensitivePropertiesOf(template as ServiceTemplate, element.name);
    const names = [...sensitive.topLevel, ...sensitive.nested];
    return names.length === 0 ? element : { ...element, sensitive: names };
  });
  return { ok: true, definition: { ...composition.value, elements, metadata: metadata.value } };
}

/**
 * The ACM part of the rules: one composition node template, at least one element, a consistent element list and
 * usable ordering data. The composition list of every composition node template is checked, even when there are
 * several, so that all problems surface in one answer; a result is only produced when there is exactly one.
 */
function readComposition(
  entries: readonly NodeTemplateEntry[],
  types: RequirementTypes,
  options: ValidationOptions,
): Checked<Omit<CompositionTemplateInfo, 'metadata'> | undefined> {
  const parts = classifyNodeTemplates(entries, types.nodeTypes, options);
  const elements = readElements(parts.elements, types);
  const listed = parts.compositions.map((composition) => readListedElements(composition, parts.elements, entries));
  const problems = [
    ...checkCompositionCount(parts, options),
    ...elements.problems,
    ...listed.flatMap((result) => result.problems),
  ];
  const [composition] = parts.compositions;
  const [listedElements] = listed;
  if (parts.compositions.length !== 1 || composition === undefined || listedElements === undefined) {
    return { value: undefined, problems };
  }
  const removeOrphans = readRemoveOrphans(composition.definition, composition.path);
  const value = {
    compositionNodeTemplate: { name: composition.name, version: nodeTemplateVersion(composition) },
    elements: elements.value,
    listedElements: listedElements.value,
    ...(removeOrphans.value ? { removeOrphans: true as const } : {}),
  };
  return { value, problems: [...problems, ...removeOrphans.problems] };
}

/** Top-level keys: the TOSCA marker and the template's own name/version (ONAP keys definitions by them). */
function checkHeader(template: Mapping): ToscaProblem[] {
  const problems: ToscaProblem[] = [];
  const definitionsVersion = template['tosca_definitions_version'];
  if (typeof definitionsVersion !== 'string' || definitionsVersion.trim() === '') {
    const message =
      definitionsVersion === undefined || definitionsVersion === null
        ? 'tosca_definitions_version is required (e.g. tosca_simple_yaml_1_3): the body is not a TOSCA service template'
        : `tosca_definitions_version must be a non-empty string, got ${excerpt(definitionsVersion)}`;
    problems.push(problem(['tosca_definitions_version'], 'required', message));
  }
  const name = template['name'];
  if (name !== undefined && name !== null) {
    problems.push(
      ...(typeof name === 'string'
        ? checkName(name, ['name'], 'service template')
        : [problem(['name'], 'shape', `name must be a string, got ${describeKind(name)}`)]),
    );
  }
  problems.push(...checkOptionalVersion(template, 'version', []));
  return problems;
}

/** `metadata` is free-form except for the timeouts the supervision reads, which must be usable durations. */
function readMetadata(template: Mapping): { value: Record<string, unknown>; problems: ToscaProblem[] } {
  const metadata = template['metadata'];
  if (metadata === undefined || metadata === null) {
    return { value: {}, problems: [] };
  }
  if (!isMapping(metadata)) {
    return {
      value: {},
      problems: [problem(['metadata'], 'shape', `metadata must be a mapping, got ${describeKind(metadata)}`)],
    };
  }
  const problems = TIMEOUT_METADATA_KEYS.flatMap((key) => {
    const value = metadata[key];
    if (value === undefined || value === null) {
      return [];
    }
    const parsed = asNonNegativeInteger(value);
    if (parsed !== undefined && parsed > 0) {
      return [];
    }
    const message = `${key} must be a positive integer (milliseconds), got ${excerpt(value)}`;
    return [problem(['metadata', key], 'metadata-timeout', message)];
  });
  // The engine reads it as a number: a text or a fraction would silently mean "no limit".
  const parallelism = metadata['maxParallelElements'];
  if (
    parallelism !== undefined &&
    parallelism !== null &&
    !(typeof parallelism === 'number' && Number.isSafeInteger(parallelism) && parallelism > 0)
  ) {
    const message = `maxParallelElements must be a positive integer (elements in flight at once), got ${excerpt(parallelism)}`;
    problems.push(problem(['metadata', 'maxParallelElements'], 'metadata-parallelism', message));
  }
  return { value: metadata, problems };
}

/**
 * Reads a prime/deprime timeout from template metadata, accepting the spellings ONAP accepts (`200000` or
 * `"200000"`); `undefined` when absent or unusable, so the caller falls back to its configured default.
 */
export function metadataTimeoutMs(
  metadata: Record<string, unknown>,
  key: (typeof TIMEOUT_METADATA_KEYS)[number],
): number | undefined {
  const parsed = asNonNegativeInteger(metadata[key]);
  return parsed !== undefined && parsed > 0 ? parsed : undefined;
}
