import { signalKeyOf, signalToken, verifySignalToken } from './signal-token';

const ids = {
  compositionId: 'c0000000-0000-4000-8000-000000000001',
  instanceId: 'a0000000-0000-4000-8000-000000000001',
  elementId: 'b0000000-0000-4000-8000-000000000001',
};
const key = signalKeyOf({ signalKey: 'k', encryptionKey: null, user: 'u', password: 'p' });
const NOW = 1_764_000_000_000;

describe('signed signal URL tokens', () => {
  const token = signalToken(key, { ...ids, expiresAt: NOW / 1000 + 60 });

  it('grants the element it was made for until it expires', () => {
    expect(() => verifySignalToken(key, token, ids, NOW)).not.toThrow();
    expect(() => verifySignalToken(key, token, ids, NOW + 59_999)).not.toThrow();
    expect(() => verifySignalToken(key, token, ids, NOW + 60_000)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
  });

  it('is 403 for another element, instance, key or a changed expiry, and 401 when malformed', () => {
    const forbidden = expect.objectContaining({ code: 'FORBIDDEN' });
    expect(() => verifySignalToken(key, token, { ...ids, elementId: ids.instanceId }, NOW)).toThrow(forbidden);
    expect(() => verifySignalToken(key, token, { ...ids, instanceId: ids.elementId }, NOW)).toThrow(forbidden);
    const other = signalKeyOf({ signalKey: null, encryptionKey: 'secret', user: 'u', password: 'p' });
    expect(() => verifySignalToken(other, token, ids, NOW)).toThrow(forbidden);
    const [expiry, mac] = token.split('.');
    expect(() => verifySignalToken(key, `${Number(expiry) + 3600}.${mac}`, ids, NOW)).toThrow(forbidden);
    for (const malformed of [undefined, '', 'garbage', `${expiry}.short`, 42]) {
      expect(() => verifySignalToken(key, malformed, ids, NOW)).toThrow(
        expect.objectContaining({ code: 'UNAUTHENTICATED' }),
      );
    }
  });

  it('derives different keys from different sources, the same from the same', () => {
    const fromCredentials = signalKeyOf({ signalKey: null, encryptionKey: null, user: 'u', password: 'p' });
    expect(
      fromCredentials.equals(signalKeyOf({ signalKey: null, encryptionKey: null, user: 'u', password: 'p' })),
    ).toBe(true);
    expect(
      fromCredentials.equals(signalKeyOf({ signalKey: null, encryptionKey: null, user: 'u', password: 'q' })),
    ).toBe(false);
  });
});
