import { DomainError } from '../errors';

/**
 * Nested compositions (Heat's OS::Heat::Stack, TOSCA's substitution): an element type the runtime runs itself, with
 * no participant. Its work is a child instance of another composition definition, named by the element's
 * `compositionId` property; the child's chosen outProperties (`outputs`) become the element's outProperties.
 */
export const NESTED_COMPOSITION_TYPE = 'org.onap.policy.clamp.acm.NestedComposition';

/** One output of a child: the element node template of the child definition and the outProperty it reads. */
export interface NestedOutput {
  readonly element: string;
  readonly attribute: string;
}

export interface NestedCompositionSettings {
  /** The child composition definition. */
  readonly compositionId: string;
  /** The element's outProperties, by name, read from the child's elements once the child's operation ends. */
  readonly outputs: Readonly<Record<string, NestedOutput>>;
  /** The child instance's element properties, by the child definition's element node template name. */
  readonly elementProperties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface NestingProblem {
  readonly field: string;
  readonly rule: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `compositionId` (required, a UUID), `outputs` (`{ name: [element, attribute] }`) and `elementProperties`
 * (`{ childElement: { property: value } }`) from a nested element's properties; each problem names its field.
 */
export function nestedSettingsOf(properties: Readonly<Record<string, unknown>>): {
  readonly settings: NestedCompositionSettings | null;
  readonly problems: readonly NestingProblem[];
} {
  const problems: NestingProblem[] = [];
  const { compositionId, outputs = {}, elementProperties = {} } = properties;
  if (typeof compositionId !== 'string' || !UUID.test(compositionId)) {
    problems.push({
      field: 'properties.compositionId',
      rule: `must be the UUID of the nested composition definition, got ${String(JSON.stringify(compositionId)).slice(0, 60)}`,
    });
  }
  const parsedOutputs: Record<string, NestedOutput> = {};
  if (!isPlainObject(outputs)) {
    problems.push({ field: 'properties.outputs', rule: 'must be a map of name: [element, attribute]' });
  } else {
    for (const [name, value] of Object.entries(outputs)) {
      if (
        !Array.isArray(value) ||
        value.length !== 2 ||
        !value.every((part) => typeof part === 'string' && part.length > 0)
      ) {
        problems.push({ field: `properties.outputs.${name}`, rule: 'must be [element, attribute], two names' });
        continue;
      }
      parsedOutputs[name] = { element: value[0] as string, attribute: value[1] as string };
    }
  }
  const parsedProperties: Record<string, Readonly<Record<string, unknown>>> = {};
  if (!isPlainObject(elementProperties)) {
    problems.push({ field: 'properties.elementProperties', rule: 'must be a map of element: { property: value }' });
  } else {
    for (const [element, value] of Object.entries(elementProperties)) {
      if (!isPlainObject(value)) {
        problems.push({ field: `properties.elementProperties.${element}`, rule: 'must be a map of property: value' });
        continue;
      }
      parsedProperties[element] = value;
    }
  }
  if (problems.length > 0) {
    return { settings: null, problems };
  }
  return {
    settings: {
      compositionId: (compositionId as string).toLowerCase(),
      outputs: parsedOutputs,
      elementProperties: parsedProperties,
    },
    problems,
  };
}

/** A composition definition as nesting sees it: its name, and its nested elements with the definition each names. */
export interface NestingNode {
  readonly compositionId: string;
  readonly name: string;
  readonly version: string;
  /** The element node templates of the definition that are nested compositions. */
  readonly nested: ReadonlyArray<{
    readonly element: string;
    readonly properties: Readonly<Record<string, unknown>>;
  }>;
  /** The element node template names of the definition (what a nesting parent's outputs may read). */
  readonly elements: readonly string[];
  /** Whether the definition is primed (its participants know its elements). */
  readonly primed: boolean;
}

/**
 * Every problem of a definition's nesting, at commission: each nested element's settings; each child must exist;
 * outputs and elementProperties must name elements of the child; no definition may nest itself, directly or through
 * others (the cycle's path is given, as the definitions' names). `definitionOf` looks up stored definitions; the
 * candidate replaces the stored definition of the same id.
 */
export function nestingProblems(
  candidate: NestingNode,
  definitionOf: (compositionId: string) => NestingNode | undefined,
): NestingProblem[] {
  const problems: NestingProblem[] = [];
  const lookup = (id: string): NestingNode | undefined =>
    id === candidate.compositionId ? candidate : definitionOf(id);
  const label = (node: NestingNode): string => `${node.name} ${node.version} (${node.compositionId})`;
  for (const nested of candidate.nested) {
    const prefix = `topology_template.node_templates.${nested.element}`;
    const { settings, problems: own } = nestedSettingsOf(nested.properties);
    problems.push(...own.map((problem) => ({ field: `${prefix}.${problem.field}`, rule: problem.rule })));
    if (settings === null) {
      continue;
    }
    const child = lookup(settings.compositionId);
    if (child === undefined) {
      problems.push({
        field: `${prefix}.properties.compositionId`,
        rule: `must name a commissioned composition definition; ${settings.compositionId} is not one`,
      });
      continue;
    }
    for (const [name, output] of Object.entries(settings.outputs)) {
      if (!child.elements.includes(output.element)) {
        problems.push({
          field: `${prefix}.properties.outputs.${name}`,
          rule: `must name an element of ${label(child)}; ${output.element} is not one`,
        });
      }
    }
    for (const element of Object.keys(settings.elementProperties)) {
      if (!child.elements.includes(element)) {
        problems.push({
          field: `${prefix}.properties.elementProperties.${element}`,
          rule: `must name an element of ${label(child)}; ${element} is not one`,
        });
      }
    }
    const cycle = pathBack(child, candidate.compositionId, lookup, [candidate, child]);
    if (cycle !== null) {
      problems.push({
        field: `${prefix}.properties.compositionId`,
        rule: `must not nest a definition that nests this one: ${cycle.map(label).join(' -> ')}`,
      });
    }
  }
  return problems;
}

/** The nesting path from `from` back to `rootId` (a cycle through the root), or null; depth-first, each node once. */
function pathBack(
  from: NestingNode,
  rootId: string,
  lookup: (id: string) => NestingNode | undefined,
  path: NestingNode[],
  seen: Set<string> = new Set(),
): NestingNode[] | null {
  if (from.compositionId === rootId) {
    return path;
  }
  if (seen.has(from.compositionId)) {
    return null;
  }
  seen.add(from.compositionId);
  for (const nested of from.nested) {
    const { settings } = nestedSettingsOf(nested.properties);
    const next = settings === null ? undefined : lookup(settings.compositionId);
    if (next === undefined) {
      continue;
    }
    const found = pathBack(next, rootId, lookup, [...path, next], seen);
    if (found !== null) {
      return found;
    }
  }
  return null;
}

/** Refuses a definition whose nesting has problems (one 400 with every problem), naming each field and rule. */
export function assertNesting(
  candidate: NestingNode,
  definitionOf: (compositionId: string) => NestingNode | undefined,
): void {
  const problems = nestingProblems(candidate, definitionOf);
  if (problems.length > 0) {
    throw new DomainError(
      'VALIDATION_FAILED',
      problems.map((problem) => `${problem.field}: ${problem.rule}`).join('\n'),
      { problems },
    );
  }
}

/**
 * The nested definitions (direct and deeper) of a definition that are not primed: a PRIME of the parent, or a
 * DEPLOY of its instance, is refused while one is not (400 naming each).
 */
export function unprimedNested(
  root: NestingNode,
  definitionOf: (compositionId: string) => NestingNode | undefined,
): NestingNode[] {
  const unprimed: NestingNode[] = [];
  const seen = new Set<string>([root.compositionId]);
  const queue = [root];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const nested of node.nested) {
      const { settings } = nestedSettingsOf(nested.properties);
      const child = settings === null ? undefined : definitionOf(settings.compositionId);
      if (child === undefined || seen.has(child.compositionId)) {
        continue;
      }
      seen.add(child.compositionId);
      if (!child.primed) {
        unprimed.push(child);
      }
      queue.push(child);
    }
  }
  return unprimed;
}

/** Refuses an order on a definition or instance whose nested definitions are not all primed. */
export function assertNestedPrimed(
  root: NestingNode,
  definitionOf: (compositionId: string) => NestingNode | undefined,
  action: string,
): void {
  const unprimed = unprimedNested(root, definitionOf);
  if (unprimed.length > 0) {
    const names = unprimed.map((node) => `${node.name} ${node.version} (${node.compositionId})`);
    throw new DomainError(
      'VALIDATION_FAILED',
      `Cannot ${action}: nested composition definition(s) not primed: ${names.join(', ')}; prime them first`,
      {
        problems: unprimed.map((node) => ({
          field: 'compositionId',
          rule: `nested composition definition ${node.compositionId} must be primed`,
        })),
      },
    );
  }
}

/** Whether an element node template is a nested composition: its type is, or derives from, the nested type. */
export function isNestedCompositionTemplate(template: { readonly types?: readonly string[] }): boolean {
  return template.types?.includes(NESTED_COMPOSITION_TYPE) ?? false;
}
