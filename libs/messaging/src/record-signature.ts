import { createHmac, timingSafeEqual } from 'node:crypto';

import type { IncomingRecord, OutgoingRecord } from './message-bus';

/**
 * Signed records: Kafka tells a consumer nothing about which principal produced a record, so a producer that must be
 * recognised signs each record it sends (HMAC-SHA256 with a secret only it and the consumer hold) and names itself in
 * the record's headers. The signature covers the topic, the principal, the signing time, the key and the value, so a
 * record cannot be moved to another topic or key, re-attributed or altered without the secret; a consumer bounds
 * replays with the signing time against the record's time (see `verifyRecordSignature`) and by remembering the
 * signatures it saw.
 */
export const SIGNATURE_HEADERS = {
  /** The producer's principal (its SASL user name where SASL is on). */
  principal: 'acm-principal',
  /** When the record was signed, epoch milliseconds as a decimal string. */
  signedAt: 'acm-signed-at',
  /** `v1=` and the base64url HMAC-SHA256 of the canonical record (see `canonicalParts`). */
  signature: 'acm-signature',
} as const;

/** The shortest secret accepted: 32 characters, the size of an HMAC-SHA256 key. */
export const MIN_SIGNING_SECRET_LENGTH = 32;

/** What a producer signs with: who it is, and the secret only it (and the verifier) holds. */
export interface RecordSigningKey {
  readonly principal: string;
  readonly secret: string;
}

const VERSION = 'v1';

function hmacOf(
  topic: string,
  principal: string,
  signedAt: string,
  record: { key: string | null; value: string },
  secret: string,
): Buffer {
  const hmac = createHmac('sha256', secret);
  // Every part is length-prefixed, so no choice of key or value can shift a boundary between parts; a null key is
  // told apart from an empty one.
  const parts = [VERSION, topic, principal, signedAt, record.key === null ? '\u0000' : `k${record.key}`, record.value];
  for (const part of parts) {
    hmac.update(`${Buffer.byteLength(part)}:`);
    hmac.update(part);
  }
  return hmac.digest();
}

/** The record with its signature headers added (existing headers, such as trace context, are kept). */
export function signRecord(
  topic: string,
  record: OutgoingRecord,
  key: RecordSigningKey,
  signedAtMs: number,
): OutgoingRecord {
  const signedAt = String(Math.trunc(signedAtMs));
  const signature = hmacOf(topic, key.principal, signedAt, record, key.secret).toString('base64url');
  return {
    ...record,
    headers: {
      ...record.headers,
      [SIGNATURE_HEADERS.principal]: key.principal,
      [SIGNATURE_HEADERS.signedAt]: signedAt,
      [SIGNATURE_HEADERS.signature]: `${VERSION}=${signature}`,
    },
  };
}

/** Why a record's signature does not vouch for it. */
export type SignatureFault = 'missing' | 'wrong-principal' | 'invalid' | 'stale';

export type SignatureCheck = { ok: true; signature: string; signedAtMs: number } | { ok: false; fault: SignatureFault };

/**
 * Checks that the record was signed by `expected.principal` with its secret, at most `maxSkewMs` away from the
 * record's time. With the topic's `message.timestamp.type=LogAppendTime` the record's time is the broker's, so an old
 * record produced again gets a new time and fails; with the default CreateTime it is the producer's, which a replayer
 * can set, and only the consumer's memory of signatures catches a replay.
 */
export function verifyRecordSignature(
  record: IncomingRecord,
  expected: RecordSigningKey,
  maxSkewMs: number,
): SignatureCheck {
  const principal = record.headers[SIGNATURE_HEADERS.principal];
  const signedAt = record.headers[SIGNATURE_HEADERS.signedAt];
  const signature = record.headers[SIGNATURE_HEADERS.signature];
  if (principal === undefined || signedAt === undefined || signature === undefined) {
    return { ok: false, fault: 'missing' };
  }
  if (principal !== expected.principal) {
    return { ok: false, fault: 'wrong-principal' };
  }
  const presented = signature.startsWith(`${VERSION}=`)
    ? Buffer.from(signature.slice(VERSION.length + 1), 'base64url')
    : null;
  const computed = hmacOf(record.topic, principal, signedAt, record, expected.secret);
  if (presented === null || presented.length !== computed.length || !timingSafeEqual(presented, computed)) {
    return { ok: false, fault: 'invalid' };
  }
  const signedAtMs = Number(signedAt);
  if (!/^\d{1,16}$/.test(signedAt) || Math.abs(Number(record.timestamp) - signedAtMs) > maxSkewMs) {
    return { ok: false, fault: 'stale' };
  }
  return { ok: true, signature, signedAtMs };
}
