import { excerpt, shortText } from '@acm/input-guards';
import type { Checked } from './element-properties';
import type { Mapping } from './guards';
import { describeKind, isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import type { NodeTemplateEntry } from './validate-topology';

/** The TOSCA normative relationship that orders two node templates (TOSCA Simple Profile 1.3, 5.7.2). */
export const DEPENDS_ON_RELATIONSHIP = 'tosca.relationships.DependsOn';

/**
 * TOSCA's `tosca.nodes.Root` declares the `dependency` requirement with the DependsOn relationship, so every node
 * type has it even when its own definition (or ONAP's `tosca.nodetypes.Root` spelling) does not repeat it.
 */
const NORMATIVE_DEPENDENCY_REQUIREMENT = 'dependency';

/** One element an element node template says it depends on, with where the document says so. */
export interface DeclaredDependency {
  readonly name: string;
  readonly path: readonly PathSegment[];
  /** Set when the dependency is implicit, a reference in a property value (`get_attribute [db, url]`). */
  readonly reference?: string;
}

/** How far `derived_from` is followed: type cycles are reported by the type checks, not looped on here. */
const MAX_TYPE_DEPTH = 64;

function ancestry(typeName: string | undefined, types: Mapping | undefined): Mapping[] {
  const chain: Mapping[] = [];
  let current = typeName;
  while (current !== undefined && chain.length < MAX_TYPE_DEPTH) {
    const definition = types?.[current];
    if (!isMapping(definition)) {
      break;
    }
    chain.push(definition);
    const parent = definition['derived_from'];
    current = typeof parent === 'string' ? parent : undefined;
  }
  return chain;
}

/** A requirement's relationship written as a type name or as `{type: name}` (TOSCA's extended notation). */
function relationshipName(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value;
  }
  return isMapping(value) && typeof value['type'] === 'string' ? value['type'] : undefined;
}

/** True for DependsOn itself and for a relationship type of the template derived from it. */
function isDependsOn(relationship: string, relationshipTypes: Mapping | undefined): boolean {
  if (relationship === DEPENDS_ON_RELATIONSHIP) {
    return true;
  }
  return ancestry(relationship, relationshipTypes).some(
    (definition) => definition['derived_from'] === DEPENDS_ON_RELATIONSHIP,
  );
}

/** The relationship a node type (or one of its ancestors) declares for a requirement name. */
function declaredRelationship(requirement: string, typeName: string | undefined, nodeTypes: Mapping | undefined) {
  for (const definition of ancestry(typeName, nodeTypes)) {
    const requirements = definition['requirements'];
    if (!Array.isArray(requirements)) {
      continue;
    }
    for (const item of requirements as unknown[]) {
      const declared = isMapping(item) ? item[requirement] : undefined;
      if (isMapping(declared)) {
        return relationshipName(declared['relationship']);
      }
    }
  }
  return requirement === NORMATIVE_DEPENDENCY_REQUIREMENT ? DEPENDS_ON_RELATIONSHIP : undefined;
}

/** The templates' relationship type definitions and node types the requirement rules look things up in. */
export interface RequirementTypes {
  readonly nodeTypes: Mapping | undefined;
  readonly relationshipTypes: Mapping | undefined;
}

/**
 * The DependsOn requirements of a node template, in TOSCA's two notations: the short `- dependency: Database` (the
 * relationship comes from the requirement's definition in the node type) and the extended
 * `- db: {node: Database, relationship: tosca.relationships.DependsOn}`. Requirements with any other relationship
 * (HostedOn, ConnectsTo, ...) do not order anything and are kept as written, unchecked, as ONAP keeps them.
 */
export function readDependencyRequirements(
  entry: NodeTemplateEntry,
  types: RequirementTypes,
): Checked<DeclaredDependency[]> {
  const raw = entry.definition['requirements'];
  const path = [...entry.path, 'requirements'];
  if (raw === undefined || raw === null) {
    return { value: [], problems: [] };
  }
  if (!Array.isArray(raw)) {
    const message = `requirements must be a list of single-key mappings (name: node template), got ${describeKind(raw)}`;
    return { value: [], problems: [problem(path, 'shape', message)] };
  }
  const problems: ToscaProblem[] = [];
  const value: DeclaredDependency[] = [];
  (raw as unknown[]).forEach((item, position) => {
    const itemPath = [...path, position];
    const keys = isMapping(item) ? Object.keys(item) : [];
    const [requirement] = keys;
    if (!isMapping(item) || keys.length !== 1 || requirement === undefined) {
      const message = `requirements entries must be mappings with exactly one requirement name, got ${excerpt(item)}`;
      problems.push(problem(itemPath, 'shape', message));
      return;
    }
    const assignment = item[requirement];
    const extended = isMapping(assignment);
    const relationship =
      (extended ? relationshipName(assignment['relationship']) : undefined) ??
      declaredRelationship(requirement, entry.type?.name, types.nodeTypes);
    if (relationship === undefined || !isDependsOn(relationship, types.relationshipTypes)) {
      return;
    }
    const target = extended ? assignment['node'] : assignment;
    const targetPath = extended ? [...itemPath, requirement, 'node'] : [...itemPath, requirement];
    if (typeof target !== 'string' || target === '') {
      const message = `requirement ${shortText(requirement)} (${DEPENDS_ON_RELATIONSHIP}) must name an element node template, got ${excerpt(target)}`;
      problems.push(problem(targetPath, 'depends-on', message));
      return;
    }
    value.push({ name: target, path: targetPath });
  });
  return { value, problems };
}
