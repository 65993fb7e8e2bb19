import { excerpt, shortText } from '@acm/input-guards';
import type { Checked } from './element-properties';
import { readDependsOn, readStage, readStartPhase } from './element-properties';
import type { DeclaredDependency, RequirementTypes } from './element-requirements';
import { readDependencyRequirements } from './element-requirements';
import { SELF, describeReference, readElementReferences } from './element-references';
import type { EntityEntry } from './entity-checks';
import type { Mapping } from './guards';
import { describeKind, isMapping } from './guards';
import { NULL_VERSION } from './naming';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import type { ConceptIdentifier, ElementDefinitionInfo } from './service-template';
import type { NodeTemplateEntry } from './validate-topology';
import { findCycles } from './validate-types';
import { replaceRulesOf } from './replace-rules';
import type { GroupDefinition } from './group-rules';
import { readGroupDefinition, uniquePropertiesOf } from './group-rules';

/** Node type names that make a node template an AC element or the AC composition (ONAP's runtime settings). */
export interface CompositionTypeNames {
  /** ONAP `toscaElementName`, by default `org.onap.policy.clamp.acm.AutomationCompositionElement`. */
  elementTypeName: string;
  /** ONAP `toscaCompositionName`, by default `org.onap.policy.clamp.acm.AutomationComposition`. */
  compositionTypeName: string;
}

/** The default of ONAP's `runtime.acmParameters.toscaElementName`. */
export const ACM_ELEMENT_TYPE = 'org.onap.policy.clamp.acm.AutomationCompositionElement';
/** The default of ONAP's `runtime.acmParameters.toscaCompositionName`. */
export const ACM_COMPOSITION_TYPE = 'org.onap.policy.clamp.acm.AutomationComposition';

const NODE_TEMPLATES_PATH: PathSegment[] = ['topology_template', 'node_templates'];

/**
 * ONAP's element test, kept deliberately shallow: the node template's type name contains the element type name, or
 * its node type's direct `derived_from` does. A grand-child of the element type is therefore *not* an element, as in
 * ONAP.
 */
export function isElementType(typeName: string, nodeTypes: Mapping | undefined, elementTypeName: string): boolean {
  if (typeName.includes(elementTypeName)) {
    return true;
  }
  const nodeType = nodeTypes?.[typeName];
  const parent = isMapping(nodeType) ? nodeType['derived_from'] : undefined;
  return typeof parent === 'string' && parent.includes(elementTypeName);
}

/**
 * A node type and the types it derives from, nearest first, as far as the template declares them (a cycle or a
 * chain longer than 32 stops the walk; cycles are reported by the type checks).
 */
export function typeLineage(typeName: string, nodeTypes: Mapping | undefined): string[] {
  const lineage: string[] = [];
  let current: string | undefined = typeName;
  while (current !== undefined && current !== '' && !lineage.includes(current) && lineage.length < 32) {
    lineage.push(current);
    const nodeType: unknown = nodeTypes?.[current];
    const parent = isMapping(nodeType) ? nodeType['derived_from'] : undefined;
    current = typeof parent === 'string' ? parent : undefined;
  }
  return lineage;
}

/** Node templates split into the composition node template(s) and the element node templates, in document order. */
export interface CompositionParts {
  compositions: NodeTemplateEntry[];
  elements: NodeTemplateEntry[];
}

/**
 * The node templates a stored definition recorded as its elements when it was commissioned. A stored template is
 * read by these names, never by the type names configured now, which may have changed since.
 */
export interface RecordedElements {
  readonly elementNames: readonly string[];
}

function listsElements(entry: NodeTemplateEntry): boolean {
  const properties = entry.definition['properties'];
  return isMapping(properties) && Array.isArray(properties['elements']);
}

/** Splits node templates by role; anything else (e.g. legacy Participant node templates) is ignored, as in ONAP. */
export function classifyNodeTemplates(
  entries: readonly NodeTemplateEntry[],
  nodeTypes: Mapping | undefined,
  names: CompositionTypeNames & Partial<RecordedElements>,
): CompositionParts {
  if (names.elementNames !== undefined) {
    const recorded = new Set(names.elementNames);
    return {
      compositions: entries.filter((entry) => !recorded.has(entry.name) && listsElements(entry)),
      elements: entries.filter((entry) => recorded.has(entry.name)),
    };
  }
  const compositions = entries.filter((entry) => entry.type?.name === names.compositionTypeName);
  const elements = entries.filter(
    (entry) =>
      entry.type !== undefined &&
      entry.type.name !== names.compositionTypeName &&
      isElementType(entry.type.name, nodeTypes, names.elementTypeName),
  );
  return { compositions, elements };
}

/** ONAP's two topology rules, with ONAP's wording so existing clients recognise the messages. */
export function checkCompositionCount(parts: CompositionParts, names: CompositionTypeNames): ToscaProblem[] {
  const problems: ToscaProblem[] = [];
  if (parts.compositions.length === 0) {
    const message = `NodeTemplate with type ${names.compositionTypeName} must exist!`;
    problems.push(problem(NODE_TEMPLATES_PATH, 'composition-missing', message));
  }
  if (parts.compositions.length > 1) {
    const found = parts.compositions.map((entry) => entry.name).join(', ');
    const message = `NodeTemplate with type ${names.compositionTypeName} not allowed to be more than one! (found ${found})`;
    problems.push(problem(NODE_TEMPLATES_PATH, 'composition-duplicate', message));
  }
  if (parts.elements.length === 0) {
    const message = `NodeTemplate with element type ${names.elementTypeName} must exist!`;
    problems.push(problem(NODE_TEMPLATES_PATH, 'element-missing', message));
  }
  return problems;
}

/** Node template `version` as ONAP keys it (`0.0.0` when absent). */
export function nodeTemplateVersion(entry: EntityEntry): string {
  const version = entry.definition['version'];
  return typeof version === 'string' && version !== '' ? version : NULL_VERSION;
}

/** `properties` of a node template, reporting a non-mapping once. */
export function readProperties(entry: EntityEntry): Checked<Record<string, unknown>> {
  const properties = entry.definition['properties'];
  if (properties === undefined || properties === null) {
    return { value: {}, problems: [] };
  }
  if (isMapping(properties)) {
    return { value: properties, problems: [] };
  }
  const message = `properties must be a mapping, got ${describeKind(properties)}`;
  return { value: {}, problems: [problem([...entry.path, 'properties'], 'shape', message)] };
}

/**
 * Reads `properties.elements` of the composition node template: the `{name, version}` list an instance must match.
 * Each entry must name an element node template with exactly that version, once.
 */
export function readListedElements(
  composition: NodeTemplateEntry,
  elements: readonly NodeTemplateEntry[],
  allNodeTemplates: readonly NodeTemplateEntry[],
): Checked<ConceptIdentifier[]> {
  const path = [...composition.path, 'properties', 'elements'];
  const properties = readProperties(composition);
  const raw = properties.value['elements'];
  if (raw === undefined || raw === null) {
    const message = `the composition node template ${shortText(composition.name)} needs properties.elements, the list of its elements`;
    return { value: [], problems: [...properties.problems, problem(path, 'required', message)] };
  }
  if (!Array.isArray(raw)) {
    const message = `properties.elements must be a list of {name, version}, got ${describeKind(raw)}`;
    return { value: [], problems: [problem(path, 'shape', message)] };
  }
  const problems: ToscaProblem[] = [];
  const listed: ConceptIdentifier[] = [];
  raw.forEach((item: unknown, position) => {
    const itemPath = [...path, position];
    const identifier = asConceptIdentifier(item);
    if (identifier === undefined) {
      const message = `elements entries must be {name: <string>, version: <string>}, got ${excerpt(item)}`;
      problems.push(problem(itemPath, 'shape', message));
      return;
    }
    if (listed.some((other) => other.name === identifier.name)) {
      problems.push(
        problem(itemPath, 'element-duplicate', `element ${shortText(identifier.name)} is listed more than once`),
      );
      return;
    }
    listed.push(identifier);
    problems.push(...checkListedElement(identifier, itemPath, elements, allNodeTemplates));
  });
  return { value: listed, problems };
}

function asConceptIdentifier(item: unknown): ConceptIdentifier | undefined {
  if (!isMapping(item)) {
    return undefined;
  }
  const { name, version } = item;
  return typeof name === 'string' && typeof version === 'string' ? { name, version } : undefined;
}

function checkListedElement(
  identifier: ConceptIdentifier,
  path: PathSegment[],
  elements: readonly NodeTemplateEntry[],
  allNodeTemplates: readonly NodeTemplateEntry[],
): ToscaProblem[] {
  const element = elements.find((entry) => entry.name === identifier.name);
  if (element === undefined) {
    const exists = allNodeTemplates.some((entry) => entry.name === identifier.name);
    const message = exists
      ? `listed element ${shortText(identifier.name)} is not an element node template (its type is not an AC element type)`
      : `listed element ${shortText(identifier.name)} is not a node template of this template`;
    return [problem([...path, 'name'], 'element-reference', message)];
  }
  const version = nodeTemplateVersion(element);
  if (version === identifier.version) {
    return [];
  }
  const message = `listed element ${shortText(identifier.name)} has version ${identifier.version} but the node template has version ${version}`;
  return [problem([...path, 'version'], 'element-reference', message)];
}

/**
 * Reads what the runtime needs from each element node template, then checks its dependencies across elements: the
 * `dependsOn` property and the DependsOn requirements compile to one graph.
 */
export function readElements(
  elements: readonly NodeTemplateEntry[],
  types: RequirementTypes = { nodeTypes: undefined, relationshipTypes: undefined },
): Checked<ElementDefinitionInfo[]> {
  const problems: ToscaProblem[] = [];
  const declared = new Map<string, DeclaredDependency[]>();
  const infos = elements.map((entry) => {
    const properties = readProperties(entry);
    const propertiesPath = [...entry.path, 'properties'];
    const startPhase = readStartPhase(properties.value, propertiesPath);
    const stage = readStage(properties.value, propertiesPath);
    const dependsOn = readDependsOn(properties.value, propertiesPath);
    const requirements = readDependencyRequirements(entry, types);
    const references = readElementReferences(entry.name, properties.value, propertiesPath);
    const group = readGroupDefinition(entry.definition, entry.path);
    problems.push(
      ...group.problems,
      ...properties.problems,
      ...startPhase.problems,
      ...stage.problems,
      ...dependsOn.problems,
      ...requirements.problems,
      ...references.problems,
    );
    // A reference to another element is an implicit dependency (Heat's get_attr, OpenTofu's interpolations).
    const implicit: DeclaredDependency[] = references.value
      .filter((reference) => reference.element !== SELF)
      .map((reference) => ({
        name: reference.element,
        path: [...reference.at, reference.fn, 0],
        reference: describeReference(reference),
      }));
    const dependencies = [
      ...dependsOn.value.map((name) => ({ name, path: [...propertiesPath, 'dependsOn'] })),
      ...requirements.value,
      ...implicit,
    ];
    declared.set(entry.name, dependencies);
    const info: ElementDefinitionInfo = {
      name: entry.name,
      version: nodeTemplateVersion(entry),
      type: entry.type?.name ?? '',
      typeVersion: entry.type?.version ?? NULL_VERSION,
      types: typeLineage(entry.type?.name ?? '', types.nodeTypes),
      startPhase: startPhase.value,
      stage: stage.value,
      properties: properties.value,
      dependsOn: [...new Set(dependencies.map((dependency) => dependency.name))],
      ...replaceFields(types.nodeTypes, entry.type?.name ?? ''),
      ...healthGateMetadata(entry.definition),
      ...(group.value === undefined ? {} : { group: withUnique(group.value, types.nodeTypes, entry.type?.name ?? '') }),
    };
    return info;
  });
  problems.push(...checkDependencies(infos, declared));
  return { value: infos, problems };
}

/** The keys of a node template's metadata that give its element a health gate (read by the runtime's domain). */
const HEALTH_GATE_KEYS = ['health_condition', 'health_bake', 'health_deadline'] as const;

/** The node template's health-gate metadata, as written, when it sets any: the runtime checks and reads it. */
function healthGateMetadata(definition: Record<string, unknown>): Pick<ElementDefinitionInfo, 'gateMetadata'> {
  const metadata = definition['metadata'];
  if (!isMapping(metadata) || !HEALTH_GATE_KEYS.some((key) => metadata[key] !== undefined)) {
    return {};
  }
  return {
    gateMetadata: Object.fromEntries(
      HEALTH_GATE_KEYS.filter((key) => metadata[key] !== undefined).map((key) => [key, metadata[key]]),
    ),
  };
}

/** The replace rules of an element's node type, as optional fields: a type that sets none adds nothing. */
function replaceFields(
  nodeTypes: Mapping | undefined,
  typeName: string,
): Pick<ElementDefinitionInfo, 'replaceOn' | 'createBeforeDestroy'> {
  const rules = replaceRulesOf(nodeTypes, typeName);
  return {
    ...(rules.replaceOn.length > 0 ? { replaceOn: rules.replaceOn } : {}),
    ...(rules.createBeforeDestroy ? { createBeforeDestroy: true as const } : {}),
  };
}

function checkDependencies(
  infos: readonly ElementDefinitionInfo[],
  declared: ReadonlyMap<string, readonly DeclaredDependency[]>,
): ToscaProblem[] {
  const names = new Set(infos.map((info) => info.name));
  const problems: ToscaProblem[] = [];
  for (const info of infos) {
    for (const dependency of declared.get(info.name) ?? []) {
      if (!names.has(dependency.name)) {
        const message =
          dependency.reference === undefined
            ? `element ${shortText(info.name)} depends on ${shortText(dependency.name)}, which is not an element node template`
            : `${dependency.reference}: element ${shortText(info.name)} refers to ${shortText(dependency.name)}, which is not an element node template`;
        problems.push(
          problem(dependency.path, dependency.reference === undefined ? 'depends-on' : 'reference', message),
        );
      }
    }
  }
  // Phases stay the outer order: a dependency in a later start phase could never be done in time (deploy
  // opens that phase only after this one completes), so it is refused instead of hanging the operation.
  const phaseOf = new Map(infos.map((info) => [info.name, info.startPhase]));
  for (const info of infos) {
    for (const dependency of declared.get(info.name) ?? []) {
      const dependencyPhase = phaseOf.get(dependency.name);
      if (dependencyPhase !== undefined && dependencyPhase > info.startPhase) {
        const how = dependency.reference === undefined ? 'depends on' : `refers to (${dependency.reference})`;
        const message = `element ${info.name} (startPhase ${info.startPhase}) ${how} ${dependency.name}, which starts later (startPhase ${dependencyPhase}); an element may depend only on elements of its own or an earlier start phase`;
        problems.push(problem(dependency.path, 'depends-on-later-phase', message));
      }
    }
  }
  const dependsOn = new Map(infos.map((info) => [info.name, info.dependsOn.filter((name) => names.has(name))]));
  for (const cycle of findCycles([...names], (name) => dependsOn.get(name) ?? [])) {
    const [first = '', second = ''] = cycle;
    // The cycle is reported where its first edge is written (a dependsOn entry or a requirement).
    const edge = (declared.get(first) ?? []).find((dependency) => dependency.name === second);
    problems.push(
      problem(
        edge?.path ?? NODE_TEMPLATES_PATH,
        'depends-on-cycle',
        `elements depend on each other in a loop: ${cycle.join(' -> ')}`,
      ),
    );
  }
  return problems;
}

/** A group's rules with the properties its members must not share, when its node type marks any. */
function withUnique(group: GroupDefinition, nodeTypes: Mapping | undefined, typeName: string): GroupDefinition {
  const unique = uniquePropertiesOf(nodeTypes, typeName);
  return unique.length === 0 ? group : { ...group, unique };
}
