import { JSON_SCHEMA, Type, YAMLException, load } from 'js-yaml';
import type { EventType, State } from 'js-yaml';

import { MAX_EXCERPT_CHARACTERS, excerpt } from './excerpt';
import { forbiddenCharacterIn } from './text-rules';

/** The two body formats of ONAP's REST API. */
export type BodyFormat = 'json' | 'yaml';

/**
 * Limits on what a body may expand to. Aliases let a few hundred bytes of YAML stand for billions of values, or (with
 * a self-referencing alias) an infinite one; every later step (validation, JSON encoding, jsonb) walks the expanded
 * value, so the limits apply to the value as if every alias were copied.
 */
export interface BodyLimits {
  /** Values (scalars, mappings, lists, counted once per alias use) in the whole body. */
  readonly maxValues: number;
  /** Nesting levels of mappings and lists; the body itself is level 0. */
  readonly maxDepth: number;
  /**
   * Keys and values as the parser reads them (an alias counts once; js-yaml reads a node with an anchor twice, so it
   * counts twice): what parsing itself costs. Counted while the text is read, so a body over it is refused before it
   * is built (a JSON object of 200,000 keys held the event loop for 0.4 s).
   */
  readonly maxNodes: number;
  /** Distinct YAML anchor names: each costs js-yaml about twice a plain node (150,000 anchors took 1.1 s). */
  readonly maxAnchors: number;
}

/**
 * Sized so that no body within them holds the event loop for long (the costliest YAML within them parses in about
 * 0.1 s on a loaded core, docs/compatibility.md) and ONAP's largest reference composition (about 5,000 nodes, no
 * anchor) fits ten times over.
 */
export const DEFAULT_BODY_LIMITS: BodyLimits = {
  maxValues: 1_000_000,
  maxDepth: 100,
  maxNodes: 50_000,
  maxAnchors: 10_000,
};

/** Stable names of the rules a body can break, for tests and clients that match on them. */
export type BodyRule =
  | 'syntax'
  | 'encoding'
  | 'too-many-values'
  | 'too-many-nodes'
  | 'too-many-anchors'
  | 'too-deep'
  | 'forbidden-character';

export interface BodyRefusal {
  readonly rule: BodyRule;
  /** Where in the body (`elements["x"].properties.a[2]`), empty for the whole body. */
  readonly path: string;
  readonly message: string;
  /** 1-based, for syntax errors when the parser knows it. */
  readonly line?: number;
  readonly column?: number;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; refusal: BodyRefusal };

/**
 * YAML merge keys (`<<: *anchor`), which hand-written TOSCA uses together with anchors. js-yaml merges any key resolved
 * to this tag; its own definition is not exposed by the typings, so it is restated here.
 */
const MERGE_KEY = new Type('tag:yaml.org,2002:merge', {
  kind: 'scalar',
  resolve: (data: unknown) => data === '<<' || data === null,
});

/**
 * JSON-compatible YAML: no timestamps, binaries or language-specific tags, so a YAML body yields exactly the values a
 * JSON body could carry.
 */
const JSON_COMPATIBLE_YAML = JSON_SCHEMA.extend({ implicit: [MERGE_KEY] });

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Decodes body bytes, refusing bytes that are not UTF-8 instead of turning them into U+FFFD. */
export function decodeBody(bytes: Uint8Array): { ok: true; text: string } | { ok: false; refusal: BodyRefusal } {
  try {
    return { ok: true, text: STRICT_UTF8.decode(bytes) };
  } catch {
    return { ok: false, refusal: { rule: 'encoding', path: '', message: 'The body is not valid UTF-8' } };
  }
}

/**
 * The one parser of untrusted JSON and YAML: a syntax error names its line and column, and the value is refused when
 * it breaks the {@link BodyLimits} or holds a string or key with NUL or a lone surrogate (naming its path).
 */
export function parseBody(text: string, format: BodyFormat, limits: BodyLimits = DEFAULT_BODY_LIMITS): ParsedBody {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const parsed = format === 'json' ? parseJson(body, limits) : parseYaml(body, limits);
  if (!parsed.ok) {
    return parsed;
  }
  const refusal = checkValue(parsed.value, limits);
  return refusal === undefined ? parsed : { ok: false, refusal };
}

const tooManyNodes = (limits: BodyLimits): BodyRefusal => ({
  rule: 'too-many-nodes',
  path: '',
  message: `The body holds more than ${limits.maxNodes} keys and values (the parser's limit per body)`,
});

function parseJson(text: string, limits: BodyLimits): ParsedBody {
  // A node takes at least one character, so only a text longer than the limit needs counting.
  if (text.length > limits.maxNodes && jsonNodesExceed(text, limits.maxNodes)) {
    return { ok: false, refusal: tooManyNodes(limits) };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const offset = jsonErrorOffset(text, reason);
    return { ok: false, refusal: syntaxRefusal('JSON', reason, offset === undefined ? undefined : at(text, offset)) };
  }
}

/** V8 names the offending offset in most JSON errors, and "end of JSON input" means the text stopped too early. */
function jsonErrorOffset(text: string, reason: string): number | undefined {
  const position = /at position (\d+)/.exec(reason)?.[1];
  if (position !== undefined) {
    return Number(position);
  }
  return reason.includes('end of JSON input') ? text.length : undefined;
}

/**
 * Whether a JSON text holds more than `limit` nodes (strings, numbers, literals, objects, arrays; keys are strings), by
 * one pass over its characters that builds nothing: V8's JSON.parse cannot be stopped half-way, so an oversized body
 * is refused before it starts. A text that is not JSON gets a count of some kind and JSON.parse's own error after.
 */
function jsonNodesExceed(text: string, limit: number): boolean {
  let nodes = 0;
  let inToken = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      nodes += 1;
      inToken = false;
      for (index += 1; index < text.length; index += 1) {
        const inner = text.charCodeAt(index);
        if (inner === 0x5c) {
          index += 1;
        } else if (inner === 0x22) {
          break;
        }
      }
    } else if (code === 0x7b || code === 0x5b) {
      nodes += 1;
      inToken = false;
    } else if (code === 0x2c || code === 0x3a || code === 0x7d || code === 0x5d || code <= 0x20) {
      inToken = false;
    } else if (!inToken) {
      // The first character of a number, true, false or null.
      nodes += 1;
      inToken = true;
    }
    if (nodes > limit) {
      return true;
    }
  }
  return false;
}

/** Thrown from js-yaml's listener to stop composing a body over a limit. */
class YamlLimitReached extends Error {
  constructor(readonly refusal: BodyRefusal) {
    super(refusal.message);
  }
}

function parseYaml(text: string, limits: BodyLimits): ParsedBody {
  let nodes = 0;
  const anchors = new Set<string>();
  // js-yaml calls the listener as it opens and closes each node it composes (keys included), so the limits stop the
  // parse as soon as they are crossed, before the rest of the text costs anything.
  const listener = (event: EventType, state: State): void => {
    // js-yaml's state names the anchor of the node it closes; its typings leave that field out.
    const anchor = (state as State & { anchor?: string | null }).anchor;
    if (event === 'open') {
      nodes += 1;
      if (nodes > limits.maxNodes) {
        throw new YamlLimitReached(tooManyNodes(limits));
      }
    } else if (typeof anchor === 'string' && !anchors.has(anchor)) {
      anchors.add(anchor);
      if (anchors.size > limits.maxAnchors) {
        const message = `The body defines more than ${limits.maxAnchors} YAML anchors (the parser's limit per body)`;
        throw new YamlLimitReached({ rule: 'too-many-anchors', path: '', message });
      }
    }
  };
  try {
    // js-yaml bounds the written nesting (its maxDepth also counts the document and the innermost scalar) but not what aliases expand
    // to: checkValue does that, with the same depth rule for JSON and YAML.
    const options = { schema: JSON_COMPATIBLE_YAML, json: true, maxDepth: limits.maxDepth + 2, listener };
    return { ok: true, value: load(text, options) };
  } catch (error) {
    if (error instanceof YamlLimitReached) {
      return { ok: false, refusal: error.refusal };
    }
    if (error instanceof YAMLException) {
      const location = error.mark ? { line: error.mark.line + 1, column: error.mark.column + 1 } : undefined;
      if (error.reason.startsWith('nesting exceeded maxDepth')) {
        const message = `The body is nested deeper than ${limits.maxDepth} levels`;
        return { ok: false, refusal: { rule: 'too-deep', path: '', message, ...location } };
      }
      return { ok: false, refusal: syntaxRefusal('YAML', error.reason, location) };
    }
    if (error instanceof RangeError) {
      // js-yaml composes recursively: nesting deep enough to exhaust the stack is the only way to get here.
      const message = `The body is nested deeper than ${limits.maxDepth} levels`;
      return { ok: false, refusal: { rule: 'too-deep', path: '', message } };
    }
    throw error;
  }
}

interface LineColumn {
  line: number;
  column: number;
}

function syntaxRefusal(format: string, reason: string, location: LineColumn | undefined): BodyRefusal {
  if (location === undefined) {
    return { rule: 'syntax', path: '', message: `Invalid ${format}: ${reason}` };
  }
  const where = `line ${location.line}, column ${location.column}`;
  return { rule: 'syntax', path: '', message: `Invalid ${format} at ${where}: ${reason}`, ...location };
}

/** 1-based line/column of a character offset. */
export function at(text: string, offset: number): LineColumn {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Step = string | number;

/** A JSON path as users read it; keys are excerpted, so a huge key cannot make a huge message. */
export function formatBodyPath(steps: readonly Step[]): string {
  let out = '';
  for (const step of steps) {
    if (typeof step === 'number') {
      out += `[${step}]`;
    } else if (PLAIN_KEY.test(step) && step.length <= MAX_EXCERPT_CHARACTERS) {
      out += out === '' ? step : `.${step}`;
    } else {
      out += `[${excerpt(step)}]`;
    }
  }
  return out;
}

/**
 * Walks the value as if every alias were copied, depth first, and stops at the first broken rule. Recursion is bounded
 * by maxDepth, and the walk by maxValues, so a hostile body costs at most maxValues steps.
 */
function checkValue(root: unknown, limits: BodyLimits): BodyRefusal | undefined {
  let remaining = limits.maxValues;
  const path: Step[] = [];
  const visit = (value: unknown): BodyRefusal | undefined => {
    remaining -= 1;
    if (remaining < 0) {
      const message = `The body expands to more than ${limits.maxValues} values (YAML aliases?)`;
      return { rule: 'too-many-values', path: '', message };
    }
    if (typeof value === 'string') {
      return textRefusal(value, 'value');
    }
    if (typeof value !== 'object' || value === null) {
      return undefined;
    }
    if (path.length >= limits.maxDepth) {
      const message = `nested deeper than ${limits.maxDepth} levels (a self-referencing YAML alias nests forever)`;
      return { rule: 'too-deep', path: formatBodyPath(path), message };
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        path.push(index);
        const refusal = visit(value[index]);
        path.pop();
        if (refusal !== undefined) {
          return refusal;
        }
      }
      return undefined;
    }
    for (const [key, child] of Object.entries(value)) {
      path.push(key);
      const refusal = textRefusal(key, 'key') ?? visit(child);
      path.pop();
      if (refusal !== undefined) {
        return refusal;
      }
    }
    return undefined;
  };
  const textRefusal = (text: string, what: 'key' | 'value'): BodyRefusal | undefined => {
    const problem = forbiddenCharacterIn(text);
    return problem === undefined
      ? undefined
      : { rule: 'forbidden-character', path: formatBodyPath(path), message: `${what} ${problem}` };
  };
  return visit(root);
}
