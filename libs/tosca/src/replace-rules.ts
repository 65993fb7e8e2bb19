import { excerpt } from '@acm/input-guards';
import type { Mapping } from './guards';
import { isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import { ancestry } from './property-schema';

/**
 * Replace and orphans (an extension of this runtime; ONAP's files set none of these keys):
 * - a property definition of a node type with `metadata: { updatable: false }` cannot change in place: an UPDATE
 *   that changes it replaces the element (undeploy, then deploy with the new properties), as Heat's
 *   `update_allowed: false` and OpenTofu's "forces replacement";
 * - a node type with `metadata: { createBeforeDestroy: true }` deploys the new element before undeploying the old one;
 * - the composition node template with `metadata: { removeOrphans: true }`: the elements an UPDATE leaves out of its
 *   body are undeployed and deleted.
 * Each flag is a YAML boolean: a text such as "false" is refused at commissioning instead of being read as true.
 */
export const UPDATABLE_KEY = 'updatable';
export const CREATE_BEFORE_DESTROY_KEY = 'createBeforeDestroy';
export const REMOVE_ORPHANS_KEY = 'removeOrphans';

/** What the replace rules say about one element node template. */
export interface ReplaceRules {
  /** The properties whose change forces a replace (their definition says `updatable: false`), sorted. */
  readonly replaceOn: string[];
  readonly createBeforeDestroy: boolean;
}

function flagProblem(path: PathSegment[], key: string, value: unknown): ToscaProblem {
  return problem(
    [...path, key],
    'replace-metadata',
    `metadata.${key} must be a boolean (true or false), got ${excerpt(value)}`,
  );
}

/** A boolean flag of a metadata mapping: undefined when absent (or null), a problem when not a boolean. */
function readFlag(metadata: unknown, key: string, path: PathSegment[]): { value?: boolean; problems: ToscaProblem[] } {
  if (!isMapping(metadata)) {
    return { problems: [] };
  }
  const value = metadata[key];
  if (value === undefined || value === null) {
    return { problems: [] };
  }
  return typeof value === 'boolean' ? { value, problems: [] } : { problems: [flagProblem(path, key, value)] };
}

/**
 * Every misspelt flag of the node types (a property's `updatable`, the type's `createBeforeDestroy`), each named by
 * its path. Checked once per node type, so a type shared by many elements is reported once.
 */
export function checkReplaceMetadata(nodeTypes: Mapping | undefined): ToscaProblem[] {
  const problems: ToscaProblem[] = [];
  for (const [typeName, definition] of Object.entries(nodeTypes ?? {})) {
    if (!isMapping(definition)) {
      continue;
    }
    const typePath: PathSegment[] = ['node_types', typeName];
    problems.push(...readFlag(definition['metadata'], CREATE_BEFORE_DESTROY_KEY, [...typePath, 'metadata']).problems);
    const properties = definition['properties'];
    if (!isMapping(properties)) {
      continue;
    }
    for (const [propertyName, property] of Object.entries(properties)) {
      if (isMapping(property)) {
        const path = [...typePath, 'properties', propertyName, 'metadata'];
        problems.push(...readFlag(property['metadata'], UPDATABLE_KEY, path).problems);
      }
    }
  }
  return problems;
}

/**
 * The replace rules of a node type, inherited through `derived_from`: a child's property definition replaces its
 * parent's (so a child may make a property updatable again), and the nearest type that sets `createBeforeDestroy`
 * decides. Read loosely: `checkReplaceMetadata` reports the flags that are not booleans, which count as unset here.
 */
export function replaceRulesOf(nodeTypes: Mapping | undefined, typeName: string): ReplaceRules {
  const chain = ancestry(nodeTypes ?? {}, typeName);
  const updatable = new Map<string, boolean>();
  for (const { definition } of [...chain].reverse()) {
    const properties = definition['properties'];
    for (const [name, property] of Object.entries(isMapping(properties) ? properties : {})) {
      const flag = isMapping(property) ? readFlag(property['metadata'], UPDATABLE_KEY, []).value : undefined;
      updatable.set(name, flag ?? true);
    }
  }
  const createBeforeDestroy = chain
    .map(({ definition }) => readFlag(definition['metadata'], CREATE_BEFORE_DESTROY_KEY, []).value)
    .find((flag) => flag !== undefined);
  return {
    replaceOn: [...updatable]
      .filter(([, canUpdate]) => !canUpdate)
      .map(([name]) => name)
      .sort(),
    createBeforeDestroy: createBeforeDestroy ?? false,
  };
}

/** `metadata.removeOrphans` of the composition node template, or the problem of a value that is not a boolean. */
export function readRemoveOrphans(
  compositionNodeTemplate: unknown,
  path: PathSegment[],
): { value: boolean; problems: ToscaProblem[] } {
  const metadata = isMapping(compositionNodeTemplate) ? compositionNodeTemplate['metadata'] : undefined;
  const flag = readFlag(metadata, REMOVE_ORPHANS_KEY, [...path, 'metadata']);
  return { value: flag.value ?? false, problems: flag.problems };
}
