/**
 * Characters no stored text may contain: NUL (PostgreSQL text and jsonb cannot hold it) and UTF-16 surrogates that
 * are not part of a pair (they have no UTF-8 encoding, so they would be silently replaced or refused downstream).
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this rule looks for
const FORBIDDEN_CHARACTER = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text is refused, as a phrase to follow its field name; `undefined` when it is acceptable. */
export function forbiddenCharacterIn(text: string): string | undefined {
  const match = FORBIDDEN_CHARACTER.exec(text);
  if (match === null) {
    return undefined;
  }
  const code = match[0].charCodeAt(0);
  return code === 0
    ? `must not contain NUL (\\u0000), found at character ${match.index}`
    : `must not contain a lone UTF-16 surrogate (\\u${code.toString(16)}), found at character ${match.index}`;
}
