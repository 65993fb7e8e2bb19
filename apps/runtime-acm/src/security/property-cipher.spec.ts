import { createCipheriv, createHash, pbkdf2Sync } from 'node:crypto';
import { ENCRYPTED_PREFIX, PropertyCipher, UndecryptableValueError } from './property-cipher';

/** ONAP's built-in passphrase: Java's UUID.nameUUIDFromBytes("encrypt"), a version-3 (MD5) UUID. */
function onapPassphrase(): string {
  const md5 = createHash('md5').update('encrypt').digest();
  md5[6] = ((md5[6] ?? 0) & 0x0f) | 0x30;
  md5[8] = ((md5[8] ?? 0) & 0x3f) | 0x80;
  const hex = md5.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** ONAP's EncryptionUtils, restated with node:crypto alone: PBKDF2-SHA256("salt", 65536, 256 bit), GCM, iv ‖ ct ‖ tag. */
function independentlyEncrypted(passphrase: string, clearText: string, iv: Buffer): string {
  const key = pbkdf2Sync(Buffer.from(passphrase, 'utf8'), Buffer.from('salt', 'utf8'), 65536, 32, 'sha256');
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(Buffer.from(clearText, 'utf8')), cipher.final()]);
  return 'ENCRYPTED:' + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
}

const IV = Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
/** Written by ONAP's algorithm on a JVM (javax.crypto) with ONAP's passphrase and the iv 00..0b. */
const JAVA_VECTOR = 'ENCRYPTED:AAECAwQFBgcICQoLlx31cgCNvIbanpni8AH2Eg3dMdrUYONemcfgaTVsZAgoHocA';

describe(PropertyCipher.name, () => {
  const passphrase = onapPassphrase();
  const cipher = new PropertyCipher(passphrase);

  it('derives the passphrase ONAP builds in', () => {
    expect(passphrase).toBe('53c82eba-31f6-3416-b331-de9162ebe997');
  });

  it('writes exactly what ONAP writes for the same key, iv and text', () => {
    expect(cipher.encrypt('http://address:30800', IV)).toBe(
      independentlyEncrypted(passphrase, 'http://address:30800', IV),
    );
    expect(cipher.encrypt('http://address:30800', IV)).toBe(JAVA_VECTOR);
  });

  it('reads what ONAP wrote', () => {
    expect(cipher.decrypt(JAVA_VECTOR)).toBe('http://address:30800');
    const unicode = independentlyEncrypted(passphrase, 'pässwörd ✓', Buffer.alloc(12, 7));
    expect(cipher.decrypt(unicode)).toBe('pässwörd ✓');
  });

  it('draws a fresh iv for every value, so equal secrets do not look equal at rest', () => {
    const first = cipher.encrypt('same');
    const second = cipher.encrypt('same');
    expect(first.startsWith(ENCRYPTED_PREFIX)).toBe(true);
    expect(first).not.toBe(second);
    expect(cipher.decrypt(first)).toBe('same');
    expect(cipher.decrypt(second)).toBe('same');
  });

  it.each<[string, string]>([
    ['another key', new PropertyCipher('another passphrase').encrypt('secret')],
    ['a changed byte', JAVA_VECTOR.slice(0, -4) + 'ocAB'],
    ['a value too short', 'ENCRYPTED:AAEC'],
    ['no prefix', 'plain text'],
  ])('refuses %s', (_, value) => {
    expect(() => cipher.decrypt(value)).toThrow(UndecryptableValueError);
  });
});
