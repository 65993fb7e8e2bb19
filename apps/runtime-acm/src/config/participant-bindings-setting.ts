import { readFileSync } from 'node:fs';
import { MIN_SIGNING_SECRET_LENGTH } from '@acm/messaging';
import type { RecordSigningKey } from '@acm/messaging';

/** participantId (lower case) → the principal that alone may speak for it, and the secret it signs with. */
export type ParticipantBindingMap = ReadonlyMap<string, RecordSigningKey>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Reads `PARTICIPANT_BINDINGS`: inline JSON when it starts with `{`, else the path of a JSON file, holding
 * `{ "<participantId>": { "principal": "<name>", "secret": "<at least 32 characters>" }, ... }`. Unset or empty: null
 * (no participant is bound: ONAP's behaviour). Every problem is named; the secret never appears in a message.
 */
export function readParticipantBindings(
  setting: string | undefined,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { bindings: ParticipantBindingMap | null; problems: string[] } {
  const text = setting?.trim() ?? '';
  if (text === '') {
    return { bindings: null, problems: [] };
  }
  const where = text.startsWith('{') ? 'PARTICIPANT_BINDINGS' : `PARTICIPANT_BINDINGS (${text})`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.startsWith('{') ? text : readFile(text)) as unknown;
  } catch (error) {
    return { bindings: null, problems: [`${where}: not readable JSON (${(error as Error).message})`] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { bindings: null, problems: [`${where}: must be a JSON object of participantId → binding`] };
  }
  const problems: string[] = [];
  const bindings = new Map<string, RecordSigningKey>();
  for (const [participantId, binding] of Object.entries(parsed)) {
    const id = participantId.toLowerCase();
    const at = `${where}["${participantId.slice(0, 64)}"]`;
    if (!UUID.test(id)) {
      problems.push(`${at}: the key must be a participantId (a UUID)`);
      continue;
    }
    const principal = (binding as { principal?: unknown } | null)?.principal;
    const secret = (binding as { secret?: unknown } | null)?.secret;
    if (typeof principal !== 'string' || principal.trim() === '' || principal.length > 255) {
      problems.push(`${at}.principal: must be a principal name of 1 to 255 characters`);
    }
    if (typeof secret !== 'string' || secret.length < MIN_SIGNING_SECRET_LENGTH) {
      problems.push(`${at}.secret: must be a string of at least ${MIN_SIGNING_SECRET_LENGTH} characters`);
    }
    if (typeof principal === 'string' && typeof secret === 'string') {
      bindings.set(id, { principal, secret });
    }
  }
  return { bindings: problems.length === 0 ? bindings : null, problems };
}
