/**
 * The wire codec: participant messages ⇄ Kafka record key and UTF-8 JSON value, as ONAP writes and
 * reads them. Encoding omits nulls (ONAP's Jackson NON_NULL); decoding never throws and refuses
 * anything ONAP would refuse, with a reason naming the field and the rule, so a bad record can be
 * logged and skipped instead of crashing a consumer.
 */
import { LEGACY_MESSAGE_TYPES, isMessageType } from './message-types';
import type { MessageType } from './message-types';
import type { MessageOf, ParticipantMessage } from './messages';
import { ContractViolation, isJsonObject } from './validation/parsers';
import type { Parser } from './validation/parsers';
import { MESSAGE_PARSERS } from './validation/schemas';

/** A message ready for `MessageBus.publish`. */
export interface EncodedMessage {
  key: string | null;
  value: string;
}

/** Why a payload was refused; stable, for metrics and tests (the `reason` text is for humans). */
export type DecodeFailureCode =
  'TOO_LARGE' | 'INVALID_JSON' | 'NOT_AN_OBJECT' | 'MISSING_TYPE' | 'UNKNOWN_TYPE' | 'LEGACY_TYPE' | 'INVALID_FIELD';

/** Outcome of {@link decodeMessage}. `messageType` is set whenever the payload named one. */
export type DecodeResult =
  | { ok: true; message: ParticipantMessage }
  | { ok: false; code: DecodeFailureCode; reason: string; messageType?: string };

export interface DecodeOptions {
  /** Payloads larger than this (UTF-8 bytes) are refused before parsing. Default {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  maxBytes?: number;
}

/** 1 MiB, Kafka's default `max.message.bytes`: anything bigger did not come from a well-configured peer. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * The record key: ONAP's (`compositionId` if set, else `participantId`, else none), except for what a
 * participant reports about one instance, an element ACK or a STATUS about a single instance, which is
 * keyed by that instance. Its reports then stay in order (a STATUS never overtakes the ACK sent after it),
 * and different instances' reports spread over partitions instead of queueing behind one participant key.
 */
export function messageKey(message: ParticipantMessage): string | null {
  switch (message.messageType) {
    case 'AUTOMATION_COMPOSITION_DEPLOY_ACK':
    case 'AUTOMATION_COMPOSITION_STATECHANGE_ACK':
      return message.automationCompositionId;
    case 'PARTICIPANT_STATUS': {
      const reported = message.automationCompositionInfoList ?? [];
      if (reported.length === 1 && reported[0] !== undefined) {
        return reported[0].automationCompositionId;
      }
      break;
    }
    default:
      break;
  }
  return message.compositionId ?? message.participantId ?? null;
}

/** Drops null object members (NON_NULL); array slots are kept, as Jackson keeps them. */
function omitNulls(this: unknown, _key: string, value: unknown): unknown {
  return value === null && !Array.isArray(this) ? undefined : value;
}

/** Deeper than this, the replacer path is taken (it also reports cycles as JSON.stringify does). */
const NULL_SEARCH_DEPTH = 64;

/**
 * Whether JSON.stringify needs {@link omitNulls}: an object member is null, or something could change a value
 * before the replacer sees it (`toJSON`). Nearly every message has neither, and a replacer function takes
 * JSON.stringify off its fast path (it calls back into JavaScript for every member), which doubled the encoding's cost.
 */
function needsReplacer(value: object, depth: number): boolean {
  if (depth > NULL_SEARCH_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return true;
  }
  if (Array.isArray(value)) {
    // Array slots may stay null (the replacer keeps them); only nested objects need a look.
    for (const item of value as unknown[]) {
      if (typeof item === 'object' && item !== null && needsReplacer(item, depth + 1)) {
        return true;
      }
    }
    return false;
  }
  // for…in also visits inherited enumerable members, which JSON.stringify skips: at worst a needless replacer.
  for (const key in value) {
    const member = (value as Record<string, unknown>)[key];
    if (member === null || (typeof member === 'object' && needsReplacer(member, depth + 1))) {
      return true;
    }
  }
  return false;
}

/** Serializes a message for publishing: JSON without null/undefined members, and its record key. */
export function encodeMessage(message: ParticipantMessage): EncodedMessage {
  const value = needsReplacer(message, 0) ? JSON.stringify(message, omitNulls) : JSON.stringify(message);
  return { key: messageKey(message), value };
}

function failure(code: DecodeFailureCode, reason: string, messageType?: string): DecodeResult {
  return messageType === undefined ? { ok: false, code, reason } : { ok: false, code, reason, messageType };
}

function byteLength(raw: string | Uint8Array): number {
  return typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.byteLength;
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses and validates one record value. Unknown fields are dropped, nulls count as absent, UUIDs are
 * lower-cased; everything else is returned as received. Never throws.
 */
export function decodeMessage(raw: string | Uint8Array, options: DecodeOptions = {}): DecodeResult {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // A string is never shorter in UTF-8 bytes than in UTF-16 units, so the cheap test goes first.
  if ((typeof raw === 'string' ? raw.length : raw.byteLength) > maxBytes || byteLength(raw) > maxBytes) {
    return failure('TOO_LARGE', `message: larger than ${maxBytes} bytes`);
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof raw === 'string' ? raw : textDecoder.decode(raw));
  } catch (error) {
    return failure('INVALID_JSON', `message: not valid UTF-8 JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(parsed)) {
    return failure('NOT_AN_OBJECT', 'message: must be a JSON object');
  }

  const type = parsed['messageType'];
  if (type === undefined || type === null) {
    return failure('MISSING_TYPE', 'messageType: is required');
  }
  if (typeof type !== 'string') {
    return failure('MISSING_TYPE', 'messageType: must be a string');
  }
  if ((LEGACY_MESSAGE_TYPES as readonly string[]).includes(type)) {
    return failure('LEGACY_TYPE', `messageType: ${type} is a legacy type that is no longer accepted`, type);
  }
  if (!isMessageType(type)) {
    return failure('UNKNOWN_TYPE', `messageType: unknown message type ${JSON.stringify(type)}`, type);
  }

  const parse: Parser<ParticipantMessage> = MESSAGE_PARSERS[type];
  try {
    return { ok: true, message: parse(parsed, type) };
  } catch (error) {
    if (error instanceof ContractViolation) {
      return failure('INVALID_FIELD', error.message, type);
    }
    // A parser bug, not a bad message: still never throw out of the decoder.
    return failure('INVALID_FIELD', `${type}: ${(error as Error).message}`, type);
  }
}

/** Narrows a decoded message to one type (handy in handlers and tests). */
export function isMessageOfType<T extends MessageType>(message: ParticipantMessage, type: T): message is MessageOf<T> {
  return message.messageType === type;
}
