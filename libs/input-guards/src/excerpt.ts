/** How much of a user's value an error message repeats: enough to recognise it, never enough to flood a log. */
export const MAX_EXCERPT_CHARACTERS = 120;

/**
 * A user value as an error message may quote it: a string at most {@link MAX_EXCERPT_CHARACTERS} long, JSON-escaped
 * (so NUL, control characters and lone surrogates appear as `\u0000`-style escapes) and marked when cut; other
 * values by their JSON kind only, because a mapping or list can be arbitrarily large (or, from YAML aliases, cyclic).
 */
export function excerpt(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length <= MAX_EXCERPT_CHARACTERS) {
      return JSON.stringify(value);
    }
    let end = MAX_EXCERPT_CHARACTERS;
    const last = value.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      end -= 1;
    }
    return `${JSON.stringify(value.slice(0, end))}... (${value.length} characters)`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (value === null) {
    return 'null';
  }
  if (value === undefined) {
    return 'nothing';
  }
  if (Array.isArray(value)) {
    return `a list of ${value.length}`;
  }
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

const PLAIN_SHORT_TEXT = new RegExp(`^[\\x21-\\x7e]{1,${MAX_EXCERPT_CHARACTERS}}$`);

/**
 * A user's name as a message shows it: unchanged when short and printable (the common case, so messages stay as
 * ONAP words them), otherwise as an {@link excerpt}.
 */
export function shortText(text: string): string {
  return PLAIN_SHORT_TEXT.test(text) ? text : excerpt(text);
}
