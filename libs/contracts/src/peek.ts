/**
 * A cheap look at a record before {@link decodeMessage}: ONAP has one operation topic for both directions, so the
 * runtime reads its own orders on it and every participant reads every participant's ACKs and heartbeats. Those
 * records are most of what each reader receives, and parsing and validating them only to drop them was a large
 * part of each reader's CPU. The look reads the top level of the JSON text (no parse, no allocation but the three
 * values it keeps) and says "for others" only when it is sure: a known message type that the reader would not act
 * on once decoded. Anything it cannot read plainly (escaped values, unusual structure, unknown types, oversized
 * records) is left to the full decode, which refuses or accepts it exactly as before.
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from './codec';
import type { ParticipantIdentity } from './accept';
import { MESSAGE_ROUTES } from './message-types';
import type { MessageDirection, MessageType } from './message-types';

/** The top-level fields that address a message, as written (only plain strings are read; `null` counts as absent). */
export interface PeekedEnvelope {
  messageType: string;
  participantId?: string;
  replicaId?: string;
}

/** Who reads the operation topic: the runtime, or one participant replica. */
export type MessageReader = 'runtime' | ParticipantIdentity;

const DIRECTIONS: ReadonlyMap<string, MessageDirection> = new Map(
  (Object.entries(MESSAGE_ROUTES) as Array<[MessageType, { direction: MessageDirection }]>).map(([type, route]) => [
    type,
    route.direction,
  ]),
);

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** A value read at the top level: a plain string, JSON null, or anything else (escaped string, number, nested). */
const NULL = 0;
const OTHER = 1;
type Value = string | typeof NULL | typeof OTHER;

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

function skipSpace(text: string, index: number): number {
  while (index < text.length && isSpace(text.charCodeAt(index))) {
    index += 1;
  }
  return index;
}

/** The index of the quote closing the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) {
      return -1;
    }
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) {
      backslashes += 1;
    }
    if (backslashes % 2 === 0) {
      return quote;
    }
    from = quote + 1;
  }
}

/** The index just after the object or array opened at `open` (strings skipped whole), or -1. */
function afterNested(text: string, open: number): number {
  let depth = 0;
  let index = open;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const close = closingQuote(text, index);
      if (close < 0) {
        return -1;
      }
      index = close + 1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) {
        return index + 1;
      }
    }
    index += 1;
  }
  return -1;
}

type Field = 'messageType' | 'participantId' | 'replicaId' | undefined;

/** Which addressing field the key between `open` and `close` (its quotes) names, escapes decoded as JSON.parse does. */
function fieldOf(text: string, open: number, close: number, escaped: boolean): Field | null {
  let key: string;
  if (escaped) {
    try {
      key = JSON.parse(text.slice(open, close + 1)) as string;
    } catch {
      return null;
    }
  } else {
    const length = close - open - 1;
    if (length === 11 && text.startsWith('messageType', open + 1)) {
      return 'messageType';
    }
    if (length === 13 && text.startsWith('participantId', open + 1)) {
      return 'participantId';
    }
    if (length === 9 && text.startsWith('replicaId', open + 1)) {
      return 'replicaId';
    }
    return undefined;
  }
  return key === 'messageType' || key === 'participantId' || key === 'replicaId' ? key : undefined;
}

/**
 * The addressing fields of a record's top-level JSON object, read without parsing it, as `JSON.parse` would see
 * them (a repeated key: the last one wins; escaped keys are decoded). Undefined when the text is not plainly one
 * object with a plain-string `messageType`, or an addressing field is neither a plain string nor null: those are
 * for the full decode to judge. A defined result says nothing about the rest of the record's validity.
 */
export function peekEnvelope(text: string): PeekedEnvelope | undefined {
  const values: Record<'messageType' | 'participantId' | 'replicaId', Value | undefined> = {
    messageType: undefined,
    participantId: undefined,
    replicaId: undefined,
  };
  // The next backslash at or after the cursor: most records have none, so one search answers every string.
  let backslash = text.indexOf('\\');
  const escapedUpTo = (close: number, from: number): boolean => {
    if (backslash >= 0 && backslash < from) {
      backslash = text.indexOf('\\', from);
    }
    return backslash >= 0 && backslash < close;
  };
  let index = skipSpace(text, 0);
  if (text.charCodeAt(index) !== OPEN_BRACE) {
    return undefined;
  }
  index = skipSpace(text, index + 1);
  if (text.charCodeAt(index) === CLOSE_BRACE) {
    return undefined;
  }
  for (;;) {
    if (text.charCodeAt(index) !== QUOTE) {
      return undefined;
    }
    const keyClose = closingQuote(text, index);
    if (keyClose < 0) {
      return undefined;
    }
    const field = fieldOf(text, index, keyClose, escapedUpTo(keyClose, index));
    if (field === null) {
      return undefined;
    }
    index = skipSpace(text, keyClose + 1);
    if (text.charCodeAt(index) !== COLON) {
      return undefined;
    }
    index = skipSpace(text, index + 1);
    const code = text.charCodeAt(index);
    let value: Value;
    if (code === QUOTE) {
      const close = closingQuote(text, index);
      if (close < 0) {
        return undefined;
      }
      value = field === undefined || escapedUpTo(close, index) ? OTHER : text.slice(index + 1, close);
      index = close + 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      index = afterNested(text, index);
      if (index < 0) {
        return undefined;
      }
      value = OTHER;
    } else {
      const start = index;
      while (index < text.length) {
        const next = text.charCodeAt(index);
        if (next === COMMA || next === CLOSE_BRACE || isSpace(next)) {
          break;
        }
        index += 1;
      }
      if (index === start) {
        return undefined;
      }
      value = index - start === 4 && text.startsWith('null', start) ? NULL : OTHER;
    }
    if (field !== undefined) {
      values[field] = value;
    }
    index = skipSpace(text, index);
    const separator = text.charCodeAt(index);
    if (separator === COMMA) {
      index = skipSpace(text, index + 1);
      continue;
    }
    if (separator !== CLOSE_BRACE || skipSpace(text, index + 1) !== text.length) {
      return undefined;
    }
    break;
  }
  const { messageType, participantId, replicaId } = values;
  if (typeof messageType !== 'string' || participantId === OTHER || replicaId === OTHER) {
    return undefined;
  }
  return {
    messageType,
    ...(typeof participantId === 'string' ? { participantId } : {}),
    ...(typeof replicaId === 'string' ? { replicaId } : {}),
  };
}

/** The plain string after the first `"messageType":` in the text, wherever it is; a hint, not the message's type. */
function firstTypeText(text: string): string | undefined {
  const key = text.indexOf('"messageType"');
  if (key < 0) {
    return undefined;
  }
  let index = skipSpace(text, key + '"messageType"'.length);
  if (text.charCodeAt(index) !== COLON) {
    return undefined;
  }
  index = skipSpace(text, index + 1);
  if (text.charCodeAt(index) !== QUOTE) {
    return undefined;
  }
  const close = text.indexOf('"', index + 1);
  return close < 0 ? undefined : text.slice(index + 1, close);
}

function same(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

/**
 * True when the record surely holds a message the reader does not act on, so it may be dropped without
 * {@link decodeMessage}: a known type that, once decoded, the runtime would not apply (a runtime-to-participant
 * order) or {@link acceptsMessage} would refuse for this replica (any participant-to-runtime type, or an order whose
 * `participantId` and `replicaId` name someone else). If such a record is malformed, the full decode would have
 * refused it: it is the addressed reader's to count, not this one's. False means "decode it": nothing addressed to
 * the reader is ever dropped here, and records over {@link DEFAULT_MAX_MESSAGE_BYTES} are left to the decode's
 * size rule.
 */
export function isForOthers(text: string, reader: MessageReader): boolean {
  if (text.length > DEFAULT_MAX_MESSAGE_BYTES) {
    return false;
  }
  // Keeping needs no proof (the decode follows), so the runtime keeps a participant's message on its first type
  // text, without the scan that only a drop needs; that scan would add a quarter to the decode of every kept record.
  if (reader === 'runtime' && DIRECTIONS.get(firstTypeText(text) ?? '') === 'PARTICIPANT_TO_RUNTIME') {
    return false;
  }
  const envelope = peekEnvelope(text);
  const direction = envelope === undefined ? undefined : DIRECTIONS.get(envelope.messageType);
  if (envelope === undefined || direction === undefined) {
    return false;
  }
  if (reader === 'runtime') {
    return direction === 'RUNTIME_TO_PARTICIPANT';
  }
  if (direction === 'PARTICIPANT_TO_RUNTIME') {
    return true;
  }
  // acceptsMessage's envelope rule, where it can only say no: a named participant that is not me (or me, but with a
  // replica named), and no replica named that is mine.
  const { participantId, replicaId } = envelope;
  return (
    participantId !== undefined &&
    !(same(participantId, reader.participantId) && replicaId === undefined) &&
    !same(replicaId, reader.replicaId)
  );
}
