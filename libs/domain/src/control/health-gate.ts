import jsep from 'jsep';
import { refuseTemplateSettingProblems } from './template-settings';

/**
 * Health gates: an element that answered DEPLOYED is deployed but not yet healthy until a condition over what its
 * participant reports (`outProperties`, `operationalState`, `useState`) has held for a bake time. Its dependants and
 * the next phase wait for it; a gate that misses its deadline fails the element.
 *
 * The condition language is jsep's expression grammar, evaluated here over a whitelist: `== != < <= > >= && || !`,
 * parentheses, literals (numbers, strings, `true`, `false`, `null`, a leading `-`) and dotted paths. Nothing is ever
 * evaluated by JavaScript itself (no eval, no Function): an expression outside the whitelist is refused at parse.
 */

/** The gate of one element node template, as its metadata gives it. */
export interface HealthGateRules {
  /** The condition, as written (`ready == true && replicas >= 3`). */
  readonly condition: string;
  /** How long the condition must hold without a break, in ms (0: once is enough). */
  readonly bakeMs: number;
  /** How long after the element answered DEPLOYED the gate may wait, in ms; null: the operation's deadline only. */
  readonly deadlineMs: number | null;
}

/** The metadata keys of a node template that give it a gate. */
export const GATE_METADATA = {
  condition: 'health_condition',
  bake: 'health_bake',
  deadline: 'health_deadline',
} as const;

/** Limits of a condition, so an absurd one is refused where it enters. */
export const GATE_LIMITS = { conditionLength: 1000, depth: 32, maxSeconds: 7 * 24 * 3600 } as const;

export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';
type Scalar = string | number | boolean | null;

/** A parsed condition: a tree of the whitelisted forms only. */
export type GateExpression =
  | { readonly kind: 'literal'; readonly value: Scalar }
  | { readonly kind: 'path'; readonly path: readonly string[] }
  | { readonly kind: 'not'; readonly operand: GateExpression }
  | { readonly kind: 'and' | 'or'; readonly left: GateExpression; readonly right: GateExpression }
  | {
      readonly kind: 'compare';
      readonly operator: ComparisonOperator;
      readonly left: GateExpression;
      readonly right: GateExpression;
    };

/** Why a condition was refused: what, and the character position (0-based) at or near which it was found. */
export interface GateSyntaxError {
  readonly position: number;
  readonly message: string;
}

const COMPARISONS: ReadonlySet<string> = new Set<ComparisonOperator>(['==', '!=', '<', '<=', '>', '>=']);

class Unsupported extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

/** The position of `needle` in the text, as near as it can be told (jsep's nodes carry no positions). */
function near(text: string, needle: string): number {
  const at = text.indexOf(needle);
  return at < 0 ? 0 : at;
}

function pathOf(node: jsep.Expression, text: string): string[] {
  if (node.type === 'Identifier') {
    return [(node as jsep.Identifier).name];
  }
  if (node.type === 'MemberExpression') {
    const member = node as jsep.MemberExpression;
    if (member.computed || member.property.type !== 'Identifier') {
      throw new Unsupported('only dotted paths are allowed (a.b.c), not computed members', near(text, '['));
    }
    return [...pathOf(member.object, text), (member.property as jsep.Identifier).name];
  }
  throw new Unsupported(`a path must be made of names, found ${node.type}`, 0);
}

function convert(node: jsep.Expression, text: string, depth: number): GateExpression {
  if (depth > GATE_LIMITS.depth) {
    throw new Unsupported(`nested deeper than ${GATE_LIMITS.depth} levels`, 0);
  }
  switch (node.type) {
    case 'Literal': {
      const value = (node as jsep.Literal).value;
      if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean' || value === null) {
        return { kind: 'literal', value };
      }
      throw new Unsupported('only number, string, true, false and null literals are allowed', 0);
    }
    case 'Identifier':
    case 'MemberExpression':
      return { kind: 'path', path: pathOf(node, text) };
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      if (unary.operator === '!') {
        return { kind: 'not', operand: convert(unary.argument, text, depth + 1) };
      }
      const argument = unary.argument as jsep.Literal;
      if (unary.operator === '-' && argument.type === 'Literal' && typeof argument.value === 'number') {
        return { kind: 'literal', value: -argument.value };
      }
      throw new Unsupported(`operator ${unary.operator} is not allowed here`, near(text, unary.operator));
    }
    case 'BinaryExpression': {
      const binary = node as jsep.BinaryExpression;
      const left = convert(binary.left, text, depth + 1);
      const right = convert(binary.right, text, depth + 1);
      if (binary.operator === '&&' || binary.operator === '||') {
        return { kind: binary.operator === '&&' ? 'and' : 'or', left, right };
      }
      if (COMPARISONS.has(binary.operator)) {
        return { kind: 'compare', operator: binary.operator as ComparisonOperator, left, right };
      }
      throw new Unsupported(
        `operator ${binary.operator} is not allowed (allowed: == != < <= > >= && || !)`,
        near(text, binary.operator),
      );
    }
    case 'CallExpression':
      throw new Unsupported('function calls are not allowed', near(text, '('));
    default:
      throw new Unsupported(`${node.type} is not allowed (allowed: == != < <= > >= && || !, literals, paths)`, 0);
  }
}

/** Parses a condition; the error names the position at or near which the text went wrong. */
export function parseGateCondition(
  text: string,
): { readonly expression: GateExpression } | { readonly error: GateSyntaxError } {
  if (text.trim().length === 0) {
    return { error: { position: 0, message: 'the condition is empty' } };
  }
  if (text.length > GATE_LIMITS.conditionLength) {
    return {
      error: {
        position: GATE_LIMITS.conditionLength,
        message: `longer than ${GATE_LIMITS.conditionLength} characters`,
      },
    };
  }
  let tree: jsep.Expression;
  try {
    tree = jsep(text);
  } catch (error) {
    const parsed = error as { index?: unknown; description?: unknown; message?: unknown };
    return {
      error: {
        position: typeof parsed.index === 'number' ? parsed.index : 0,
        message:
          typeof parsed.description === 'string'
            ? parsed.description
            : typeof parsed.message === 'string'
              ? parsed.message
              : 'does not parse',
      },
    };
  }
  try {
    return { expression: convert(tree, text, 0) };
  } catch (error) {
    if (error instanceof Unsupported) {
      return { error: { position: error.position, message: error.message } };
    }
    throw error;
  }
}

/** What a participant reported about an element, as the gate reads it. */
export interface GateObservation {
  readonly outProperties: Readonly<Record<string, unknown>>;
  readonly operationalState: string | null;
  readonly useState: string | null;
}

/**
 * A path's value: `operationalState` and `useState` name the element's fields, `outProperties.x` and a bare `x`
 * read its outProperties. A missing value, or one that is not a scalar, reads as null.
 */
function valueAt(path: readonly string[], observation: GateObservation): Scalar {
  const [head, ...rest] = path;
  if (head === 'operationalState' && rest.length === 0) {
    return observation.operationalState;
  }
  if (head === 'useState' && rest.length === 0) {
    return observation.useState;
  }
  let value: unknown = observation.outProperties;
  for (const segment of head === 'outProperties' ? rest : path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return null;
    }
    value = Object.prototype.hasOwnProperty.call(value, segment)
      ? (value as Record<string, unknown>)[segment]
      : undefined;
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
}

function compare(operator: ComparisonOperator, left: Scalar, right: Scalar): boolean {
  switch (operator) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default: {
      // Order only between two numbers or two strings: anything else (a missing value) does not hold.
      const comparable =
        (typeof left === 'number' && typeof right === 'number') ||
        (typeof left === 'string' && typeof right === 'string');
      if (!comparable) {
        return false;
      }
      const [a, b] = [left, right] as [number, number];
      return operator === '<' ? a < b : operator === '<=' ? a <= b : operator === '>' ? a > b : a >= b;
    }
  }
}

function evaluate(expression: GateExpression, observation: GateObservation): Scalar {
  switch (expression.kind) {
    case 'literal':
      return expression.value;
    case 'path':
      return valueAt(expression.path, observation);
    case 'not':
      return evaluate(expression.operand, observation) !== true;
    case 'and':
      return evaluate(expression.left, observation) === true && evaluate(expression.right, observation) === true;
    case 'or':
      return evaluate(expression.left, observation) === true || evaluate(expression.right, observation) === true;
    case 'compare':
      return compare(
        expression.operator,
        evaluate(expression.left, observation),
        evaluate(expression.right, observation),
      );
  }
}

/** Whether the condition holds: only a result of exactly `true` does. */
export function conditionHolds(expression: GateExpression, observation: GateObservation): boolean {
  return evaluate(expression, observation) === true;
}

function pathsIn(expression: GateExpression): string[] {
  switch (expression.kind) {
    case 'literal':
      return [];
    case 'path':
      return [expression.path.join('.')];
    case 'not':
      return pathsIn(expression.operand);
    default:
      return [...pathsIn(expression.left), ...pathsIn(expression.right)];
  }
}

/** What the condition read, for the waiting reason: `ready=false, replicas=2` (each path once, as JSON). */
export function observedValues(expression: GateExpression, observation: GateObservation): string {
  const paths = [...new Set(pathsIn(expression))];
  return paths
    .map((path) => `${path}=${JSON.stringify(valueAt(path.split('.'), observation))}`)
    .join(', ')
    .slice(0, 300);
}

/** The state of one element's gate while it waits, kept on its operation (so it survives a restart). */
export interface GateState {
  /** When the element answered DEPLOYED: the gate's deadline counts from here. */
  readonly startedAt: number;
  /** Since when the condition has held without a break; null while it does not hold. */
  readonly holdingSince: number | null;
  /** What the condition read at the last evaluation. */
  readonly observed: string;
  /** When the runtime last asked the participant for a fresh report (PARTICIPANT_STATUS_REQ). */
  readonly requestedAt: number;
}

export type GateVerdict = 'WAIT' | 'PASS' | 'FAIL';

/** A gate that starts when its element answered DEPLOYED at `now`. */
export function startGate(now: number): GateState {
  return { startedAt: now, holdingSince: null, observed: '', requestedAt: now };
}

/**
 * One evaluation of a gate at `now`: it passes once the condition has held for the bake time without a break (a
 * break starts the bake again); it fails once its deadline passed while it did not; otherwise it waits.
 */
export function observeGate(
  rules: HealthGateRules,
  expression: GateExpression,
  state: GateState,
  observation: GateObservation,
  now: number,
): { readonly state: GateState; readonly verdict: GateVerdict } {
  const holds = conditionHolds(expression, observation);
  const holdingSince = holds ? (state.holdingSince ?? now) : null;
  const next: GateState = { ...state, holdingSince, observed: observedValues(expression, observation) };
  if (holdingSince !== null && now - holdingSince >= rules.bakeMs) {
    return { state: next, verdict: 'PASS' };
  }
  if (rules.deadlineMs !== null && now - state.startedAt >= rules.deadlineMs) {
    return { state: next, verdict: 'FAIL' };
  }
  return { state: next, verdict: 'WAIT' };
}

/** How often a waiting gate is evaluated and its participant asked for a fresh report, by default. */
export const DEFAULT_GATE_POLL_MS = 1000;

/**
 * When a waiting gate must next be evaluated: its bake's end, its deadline, or the next fresh report it asks for
 * (at most one request per `pollMs`), whichever comes first.
 */
export function gateDueAt(rules: HealthGateRules, state: GateState, pollMs: number): number {
  const dues = [state.requestedAt + pollMs];
  if (state.holdingSince !== null) {
    dues.push(state.holdingSince + rules.bakeMs);
  }
  if (rules.deadlineMs !== null) {
    dues.push(state.startedAt + rules.deadlineMs);
  }
  return Math.min(...dues);
}

/** The waiting reason of a gate: `waiting for Api: condition ready == true (observed ready=false)`. */
export function gateWaitingReason(elementName: string, rules: HealthGateRules, state: GateState): string {
  const observed = state.observed.length > 0 ? state.observed : 'no report yet';
  return `waiting for ${elementName}: condition ${rules.condition} (observed ${observed})`;
}

/**
 * Whether an instance's elements are healthy per their gates: each gated element's condition holds on what it last
 * reported (the seam a rollout's bake time judges a batch on). Elements without a gate count as healthy.
 */
export function isHealthyPerGates(
  elements: ReadonlyArray<{ readonly gate: HealthGateRules | undefined; readonly observation: GateObservation }>,
): boolean {
  return elements.every(({ gate, observation }) => {
    if (gate === undefined) {
      return true;
    }
    const parsed = parseGateCondition(gate.condition);
    return 'expression' in parsed && conditionHolds(parsed.expression, observation);
  });
}

/** Reads an element node template's gate from its metadata; undefined when it has none. Problems name the field. */
export function healthGateOf(metadata: Readonly<Record<string, unknown>>): {
  readonly gate: HealthGateRules | undefined;
  readonly problems: ReadonlyArray<{ readonly field: string; readonly rule: string }>;
} {
  const condition = metadata[GATE_METADATA.condition];
  const bake = metadata[GATE_METADATA.bake];
  const deadline = metadata[GATE_METADATA.deadline];
  if (condition === undefined) {
    const stray = [GATE_METADATA.bake, GATE_METADATA.deadline].filter((key) => metadata[key] !== undefined);
    return {
      gate: undefined,
      problems: stray.map((key) => ({
        field: `metadata.${key}`,
        rule: `needs metadata.${GATE_METADATA.condition}: a bake time or a deadline gates nothing on its own`,
      })),
    };
  }
  const problems: Array<{ field: string; rule: string }> = [];
  if (typeof condition !== 'string') {
    problems.push({ field: `metadata.${GATE_METADATA.condition}`, rule: 'must be a string' });
  } else {
    const parsed = parseGateCondition(condition);
    if ('error' in parsed) {
      problems.push({
        field: `metadata.${GATE_METADATA.condition}`,
        rule: `does not parse at position ${parsed.error.position}: ${parsed.error.message}`,
      });
    }
  }
  const seconds = (value: unknown, key: string, least: number): number | null => {
    if (value === undefined) {
      return null;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < least || value > GATE_LIMITS.maxSeconds) {
      problems.push({
        field: `metadata.${key}`,
        rule: `must be a number of seconds from ${least} to ${GATE_LIMITS.maxSeconds}, got ${JSON.stringify(value)}`,
      });
      return null;
    }
    return Math.round(value * 1000);
  };
  const bakeMs = seconds(bake, GATE_METADATA.bake, 0) ?? 0;
  const deadlineMs = seconds(deadline, GATE_METADATA.deadline, 1);
  if (problems.length > 0 || typeof condition !== 'string') {
    return { gate: undefined, problems };
  }
  return { gate: { condition, bakeMs, deadlineMs }, problems };
}

/** Refuses gates that do not parse or whose times are absurd, naming the node template and the field (400). */
export function assertHealthGates(
  elements: ReadonlyArray<{ readonly name: string; readonly metadata?: Readonly<Record<string, unknown>> }>,
): void {
  refuseTemplateSettingProblems(
    elements.map((element) => ({ name: element.name, problems: healthGateOf(element.metadata ?? {}).problems })),
  );
}
