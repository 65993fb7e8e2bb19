import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * A password hashed with scrypt, written in the PHC string format:
 * `$scrypt$ln=<log2 N>,r=<block size>,p=<parallelism>$<salt>$<key>`, salt and key in base64 without padding.
 */
export interface ScryptHash {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

/** The cost a new hash gets: N = 2^15, r = 8, p = 1 (32 MiB, about 0.1 s of one core). */
export const DEFAULT_SCRYPT_COST = { logN: 15, r: 8, p: 1 } as const;

const LIMITS = { logN: [14, 20], r: [1, 32], p: [1, 16], salt: [16, 64], key: [32, 64] } as const;
const PHC = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function inRange(value: number, [low, high]: readonly [number, number]): boolean {
  return Number.isInteger(value) && value >= low && value <= high;
}

/** The hash, or the rule it breaks (the text itself is never repeated: it is as good as secret). */
export function parsePasswordHash(text: string): ScryptHash | string {
  const match = PHC.exec(text);
  if (match === null) {
    return 'the hash must be $scrypt$ln=<n>,r=<n>,p=<n>$<base64 salt>$<base64 key> (npm run hash-password)';
  }
  const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4] ?? '', 'base64');
  const key = Buffer.from(match[5] ?? '', 'base64');
  if (!inRange(logN, LIMITS.logN) || !inRange(r, LIMITS.r) || !inRange(p, LIMITS.p)) {
    return `scrypt cost out of range: ln ${LIMITS.logN.join('..')}, r ${LIMITS.r.join('..')}, p ${LIMITS.p.join('..')}`;
  }
  if (!inRange(salt.length, LIMITS.salt) || !inRange(key.length, LIMITS.key)) {
    return `the salt must be ${LIMITS.salt.join(' to ')} bytes and the key ${LIMITS.key.join(' to ')} bytes`;
  }
  return { logN, r, p, salt, key };
}

function derive(password: string, salt: Buffer, cost: { logN: number; r: number; p: number }, length: number) {
  const N = 2 ** cost.logN;
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, length, { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** A new PHC string for a password, with a fresh 16-byte salt and a 32-byte key. */
export async function hashPassword(
  password: string,
  cost: { logN: number; r: number; p: number } = DEFAULT_SCRYPT_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost, 32);
  const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=${cost.logN},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

/** Whether the password derives the hash's key (compared in constant time). */
export async function verifyPassword(password: string, hash: ScryptHash): Promise<boolean> {
  const key = await derive(password, hash.salt, hash, hash.key.length);
  return timingSafeEqual(key, hash.key);
}
