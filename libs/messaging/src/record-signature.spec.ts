import type { IncomingRecord } from './message-bus';
import { SIGNATURE_HEADERS, signRecord, verifyRecordSignature } from './record-signature';

const KEY = { principal: 'participant-a', secret: 's'.repeat(32) };
const SIGNED_AT = 1_760_000_000_000;

/** A record as the consumer receives it, signed as `signRecord` signs it for `topic`. */
function received(overrides: Partial<IncomingRecord> = {}, key = KEY): IncomingRecord {
  const signed = signRecord('ops', { key: 'k', value: '{"a":1}', headers: { traceparent: 't' } }, key, SIGNED_AT);
  return {
    topic: 'ops',
    partition: 0,
    offset: '7',
    key: signed.key,
    value: signed.value,
    timestamp: String(SIGNED_AT + 50),
    headers: signed.headers ?? {},
    ...overrides,
  };
}

describe(signRecord.name, () => {
  it('adds the principal, the signing time and the signature, keeping the other headers', () => {
    expect(received().headers).toEqual({
      traceparent: 't',
      [SIGNATURE_HEADERS.principal]: 'participant-a',
      [SIGNATURE_HEADERS.signedAt]: String(SIGNED_AT),
      [SIGNATURE_HEADERS.signature]: expect.stringMatching(/^v1=[A-Za-z0-9_-]{43}$/),
    });
  });
});

describe(verifyRecordSignature.name, () => {
  it('accepts the record as it was signed', () => {
    expect(verifyRecordSignature(received(), KEY, 60_000)).toEqual({
      ok: true,
      signature: received().headers[SIGNATURE_HEADERS.signature],
      signedAtMs: SIGNED_AT,
    });
  });

  it.each([
    ['another value', { value: '{"a":2}' }],
    ['another key', { key: 'other' }],
    ['no key instead of its key', { key: null }],
    ['another topic', { topic: 'sync' }],
  ])('refuses a record signed for %s as invalid', (_label, overrides) => {
    expect(verifyRecordSignature(received(overrides), KEY, 60_000)).toEqual({ ok: false, fault: 'invalid' });
  });

  it('refuses a signature made with another secret, a changed signing time and a garbled signature as invalid', () => {
    const otherSecret = received({}, { principal: KEY.principal, secret: 't'.repeat(32) });
    const moved = received();
    moved.headers[SIGNATURE_HEADERS.signedAt] = String(SIGNED_AT + 1);
    const garbled = received();
    garbled.headers[SIGNATURE_HEADERS.signature] = 'v1=AAAA';

    for (const record of [otherSecret, moved, garbled]) {
      expect(verifyRecordSignature(record, KEY, 60_000)).toEqual({ ok: false, fault: 'invalid' });
    }
  });

  it('refuses an unsigned record as missing and a record signed by another principal as such', () => {
    expect(verifyRecordSignature(received({ headers: {} }), KEY, 60_000)).toEqual({ ok: false, fault: 'missing' });
    const other = received({}, { principal: 'participant-b', secret: KEY.secret });
    expect(verifyRecordSignature(other, KEY, 60_000)).toEqual({ ok: false, fault: 'wrong-principal' });
  });

  it('refuses a record whose time is further from its signing time than the window, either way', () => {
    expect(verifyRecordSignature(received({ timestamp: String(SIGNED_AT + 60_001) }), KEY, 60_000)).toEqual({
      ok: false,
      fault: 'stale',
    });
    expect(verifyRecordSignature(received({ timestamp: String(SIGNED_AT - 60_001) }), KEY, 60_000).ok).toBe(false);
    expect(verifyRecordSignature(received({ timestamp: String(SIGNED_AT + 60_000) }), KEY, 60_000).ok).toBe(true);
  });
});
