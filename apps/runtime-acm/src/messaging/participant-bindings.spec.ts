import { signRecord } from '@acm/messaging';
import type { IncomingRecord } from '@acm/messaging';
import { readParticipantBindings } from '../config/participant-bindings-setting';
import { ParticipantBindings } from './participant-bindings';

const BOUND = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const UNBOUND = '5f4a9d7e-7d43-4c59-9f7e-2f7d1b0c9a11';
const KEY = { principal: 'participant-a', secret: 'a-secret-of-at-least-32-characters!' };
const NOW = 1_760_000_000_000;

function record(offset: string, signedAt = NOW, overrides: Partial<IncomingRecord> = {}): IncomingRecord {
  const signed = signRecord('ops', { key: BOUND, value: `{"n":"${signedAt}"}` }, KEY, signedAt);
  return {
    topic: 'ops',
    partition: 0,
    offset,
    key: signed.key,
    value: signed.value,
    timestamp: String(signedAt + 10),
    headers: signed.headers ?? {},
    ...overrides,
  };
}

describe(readParticipantBindings.name, () => {
  it('is off when unset or empty', () => {
    expect(readParticipantBindings(undefined)).toEqual({ bindings: null, problems: [] });
    expect(readParticipantBindings('  ')).toEqual({ bindings: null, problems: [] });
  });

  it('reads inline JSON and a file, participantIds in lower case', () => {
    const json = JSON.stringify({ [BOUND.toUpperCase()]: KEY });
    expect(readParticipantBindings(json).bindings).toEqual(new Map([[BOUND, KEY]]));
    const read = jest.fn(() => json);
    expect(readParticipantBindings('/etc/acm/bindings.json', read).bindings).toEqual(new Map([[BOUND, KEY]]));
    expect(read).toHaveBeenCalledWith('/etc/acm/bindings.json');
  });

  it('names every problem without showing a secret', () => {
    const result = readParticipantBindings(
      JSON.stringify({ 'not-a-uuid': KEY, [BOUND]: { principal: '', secret: 'short-secret' } }),
    );

    expect(result.bindings).toBeNull();
    expect(result.problems).toEqual([
      'PARTICIPANT_BINDINGS["not-a-uuid"]: the key must be a participantId (a UUID)',
      `PARTICIPANT_BINDINGS["${BOUND}"].principal: must be a principal name of 1 to 255 characters`,
      `PARTICIPANT_BINDINGS["${BOUND}"].secret: must be a string of at least 32 characters`,
    ]);
    expect(readParticipantBindings('[1]').problems).toEqual([
      "PARTICIPANT_BINDINGS ([1]): not readable JSON (ENOENT: no such file or directory, open '[1]')",
    ]);
    expect(readParticipantBindings('{"a":').problems[0]).toMatch(/^PARTICIPANT_BINDINGS: not readable JSON/);
  });
});

describe(ParticipantBindings.name, () => {
  const bindings = (): ParticipantBindings => new ParticipantBindings(new Map([[BOUND, KEY]]), 60_000);

  it('passes a signed record, and the same record redelivered at the same position', () => {
    const checker = bindings();
    expect(checker.check(record('1'), BOUND)).toEqual({ ok: true });
    expect(checker.check(record('1'), BOUND)).toEqual({ ok: true });
  });

  it('refuses the same signed record at another position as a replay', () => {
    const checker = bindings();
    checker.check(record('1'), BOUND);

    expect(checker.check(record('2'), BOUND)).toEqual({ ok: false, reason: 'replayed', principal: 'participant-a' });
  });

  it('refuses an unsigned record for the bound participant, and passes records of others unchecked', () => {
    const checker = bindings();
    const unsigned = record('3', NOW, { headers: {} });

    expect(checker.check(unsigned, BOUND.toUpperCase())).toEqual({
      ok: false,
      reason: 'missing',
      principal: 'participant-a',
    });
    expect(checker.check(unsigned, UNBOUND)).toEqual({ ok: true });
  });

  it('forgets signatures older than twice the window, which the time check refuses anyway', () => {
    const checker = bindings();
    checker.check(record('1', NOW), BOUND);
    checker.check(record('2', NOW + 121_000), BOUND);

    // Forgotten, so no longer a replay; its signing time is now far from a new record time, so it is stale.
    expect(checker.check(record('3', NOW, { timestamp: String(NOW + 121_000) }), BOUND)).toEqual({
      ok: false,
      reason: 'stale',
      principal: 'participant-a',
    });
    expect(checker.check(record('4', NOW), BOUND)).toEqual({ ok: true });
  });
});
