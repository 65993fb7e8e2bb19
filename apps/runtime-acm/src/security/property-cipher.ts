import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM in the form ONAP's runtime-acm writes (`EncryptionUtils`), so a value one runtime stored the
 * other reads: `ENCRYPTED:` + base64(iv ‖ ciphertext ‖ tag), a 12-byte random iv, a 128-bit tag, and the
 * key derived from the passphrase with PBKDF2-HMAC-SHA256, salt "salt", 65,536 iterations, 256 bits.
 * node:crypto does all of it; no library adds anything here.
 */
export const ENCRYPTED_PREFIX = 'ENCRYPTED:';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PBKDF2_SALT = 'salt';
const PBKDF2_ITERATIONS = 65_536;
const KEY_BYTES = 32;

export function isEncrypted(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(ENCRYPTED_PREFIX);
}

/** Why a value could not be decrypted: it was not written with this key, or it is not ONAP's form at all. */
export class UndecryptableValueError extends Error {
  override readonly name = 'UndecryptableValueError';
}

export class PropertyCipher {
  private readonly key: Buffer;

  /** Derives the key once: PBKDF2 with 65,536 iterations takes tens of milliseconds. */
  constructor(passphrase: string) {
    this.key = pbkdf2Sync(passphrase, PBKDF2_SALT, PBKDF2_ITERATIONS, KEY_BYTES, 'sha256');
  }

  encrypt(clearText: string, iv: Buffer = randomBytes(IV_BYTES)): string {
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    const sealed = Buffer.concat([cipher.update(clearText, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return ENCRYPTED_PREFIX + Buffer.concat([iv, sealed]).toString('base64');
  }

  decrypt(encrypted: string): string {
    if (!isEncrypted(encrypted)) {
      throw new UndecryptableValueError(`the value does not start with ${ENCRYPTED_PREFIX}`);
    }
    const bytes = Buffer.from(encrypted.slice(ENCRYPTED_PREFIX.length), 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) {
      throw new UndecryptableValueError('the value is too short to hold an iv and a tag');
    }
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new UndecryptableValueError('the value was not encrypted with this key (authentication failed)');
    }
  }
}
