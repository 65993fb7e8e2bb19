import { shortText } from '@acm/input-guards';
import type { EntityEntry } from './entity-checks';
import { checkName, checkNameField, checkOptionalVersion, checkReference } from './entity-checks';
import type { Mapping } from './guards';
import { describeKind, isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import type { TypeReference } from './type-references';
import { typeReference } from './type-references';
import type { TypeIndex } from './validate-types';

/** A node template with its resolved type reference (absent when `type` is missing or not a string). */
export interface NodeTemplateEntry extends EntityEntry {
  type: TypeReference | undefined;
}

const NODE_TEMPLATES_PATH: PathSegment[] = ['topology_template', 'node_templates'];

/**
 * Finds `topology_template.node_templates`. Without it the body is not an automation composition at all, so this is
 * where a non-TOSCA body (`{"foo": 1}`) gets its explanation; `undefined` tells the caller to skip element checks.
 */
export function indexNodeTemplates(document: Mapping): {
  entries: NodeTemplateEntry[] | undefined;
  problems: ToscaProblem[];
} {
  const topology = document['topology_template'];
  if (topology === undefined || topology === null) {
    const message = 'topology_template with node_templates is required: the body is not an automation composition';
    return { entries: undefined, problems: [problem(['topology_template'], 'required', message)] };
  }
  if (!isMapping(topology)) {
    const message = `topology_template must be a mapping, got ${describeKind(topology)}`;
    return { entries: undefined, problems: [problem(['topology_template'], 'shape', message)] };
  }
  const nodeTemplates = topology['node_templates'];
  if (nodeTemplates === undefined || nodeTemplates === null) {
    const message = 'topology_template.node_templates is required: the body is not an automation composition';
    return { entries: undefined, problems: [problem(NODE_TEMPLATES_PATH, 'required', message)] };
  }
  if (!isMapping(nodeTemplates)) {
    const message = `node_templates must be a mapping of name to node template, got ${describeKind(nodeTemplates)}`;
    return { entries: undefined, problems: [problem(NODE_TEMPLATES_PATH, 'shape', message)] };
  }
  const entries: NodeTemplateEntry[] = [];
  const problems: ToscaProblem[] = [];
  for (const [name, definition] of Object.entries(nodeTemplates)) {
    const path = [...NODE_TEMPLATES_PATH, name];
    if (!isMapping(definition)) {
      problems.push(
        problem(path, 'shape', `node template ${shortText(name)} must be a mapping, got ${describeKind(definition)}`),
      );
      entries.push({ name, path, definition: {}, malformed: true, type: undefined });
      continue;
    }
    const type = definition['type'];
    const reference =
      typeof type === 'string' && type !== '' ? typeReference(type, definition['type_version']) : undefined;
    entries.push({ name, path, definition, malformed: false, type: reference });
  }
  return { entries, problems };
}

/** Names, versions and node type of every node template. */
export function checkNodeTemplates(entries: readonly NodeTemplateEntry[], types: TypeIndex): ToscaProblem[] {
  return entries.flatMap((entry) => [
    ...checkName(entry.name, entry.path, 'node template'),
    ...(entry.malformed ? [] : checkTypedEntity(entry, entry.type, 'node template', types.node_types, 'node_types')),
  ]);
}

/**
 * Checks what ONAP checks on anything instantiated from a type (node templates, policies): a string `type`, a
 * `type_version` (ONAP answers "Version not specified" without one) and that the pair names a type of the template.
 */
function checkTypedEntity(
  entry: EntityEntry,
  reference: TypeReference | undefined,
  label: string,
  types: ReadonlyMap<string, EntityEntry>,
  section: string,
): ToscaProblem[] {
  const problems = [
    ...checkNameField(entry, label),
    ...checkOptionalVersion(entry.definition, 'version', entry.path),
    ...checkOptionalVersion(entry.definition, 'type_version', entry.path),
  ];
  const type = entry.definition['type'];
  if (reference === undefined) {
    const message =
      type === undefined || type === null
        ? `${label} ${shortText(entry.name)} needs a type`
        : `${label} ${shortText(entry.name)} type must be a type name, got ${describeKind(type)}`;
    problems.push(
      problem([...entry.path, 'type'], type === undefined || type === null ? 'required' : 'shape', message),
    );
    return problems;
  }
  if (!reference.versionGiven) {
    const message = `${label} ${shortText(entry.name)} needs a type_version (the version of type ${shortText(reference.name)})`;
    problems.push(problem([...entry.path, 'type_version'], 'required', message));
  }
  const typeLabel = section === 'node_types' ? 'node type' : 'policy type';
  const found = checkReference(reference, types, [...entry.path, 'type'], typeLabel, section);
  return [...problems, ...(reference.versionGiven ? found : found.filter((p) => p.rule === 'type-not-found'))];
}

/** `topology_template.policies` is a list of single-key mappings `{<policy name>: <policy>}`. */
export function checkPolicies(document: Mapping, types: TypeIndex): ToscaProblem[] {
  const topology = document['topology_template'];
  const policies = isMapping(topology) ? topology['policies'] : undefined;
  const path: PathSegment[] = ['topology_template', 'policies'];
  if (policies === undefined || policies === null) {
    return [];
  }
  if (!Array.isArray(policies)) {
    return [
      problem(path, 'shape', `policies must be a list of {name: policy} mappings, got ${describeKind(policies)}`),
    ];
  }
  return policies.flatMap((item: unknown, position) => {
    if (!isMapping(item)) {
      return [problem([...path, position], 'shape', `policy list entry must be a mapping, got ${describeKind(item)}`)];
    }
    return Object.entries(item).flatMap(([name, definition]) =>
      checkPolicy(name, definition, [...path, position, name], types),
    );
  });
}

function checkPolicy(name: string, definition: unknown, path: PathSegment[], types: TypeIndex): ToscaProblem[] {
  const nameProblems = checkName(name, path, 'policy');
  if (!isMapping(definition)) {
    return [
      ...nameProblems,
      problem(path, 'shape', `policy ${shortText(name)} must be a mapping, got ${describeKind(definition)}`),
    ];
  }
  const type = definition['type'];
  const reference =
    typeof type === 'string' && type !== '' ? typeReference(type, definition['type_version']) : undefined;
  const entry: EntityEntry = { name, path, definition, malformed: false };
  return [...nameProblems, ...checkTypedEntity(entry, reference, 'policy', types.policy_types, 'policy_types')];
}
