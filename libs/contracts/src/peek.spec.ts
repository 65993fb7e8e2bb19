import {
  CONTRACT_EXAMPLES,
  EXAMPLE_IDS,
  MESSAGE_ROUTES,
  MESSAGE_TYPES,
  acceptsMessage,
  decodeMessage,
  exampleObject,
  isForOthers,
  peekEnvelope,
} from '@acm/contracts';
import type { ContractExampleName, MessageReader, MessageType, ParticipantIdentity } from '@acm/contracts';

const me: ParticipantIdentity = { participantId: EXAMPLE_IDS.participant, replicaId: EXAMPLE_IDS.replica };
const myOtherReplica = 'aaaaaaaa-0000-4000-8000-000000000001';
const otherParticipant = EXAMPLE_IDS.participant2;
const otherReplica = 'aaaaaaaa-0000-4000-8000-000000000002';
const READERS: ReadonlyArray<[string, MessageReader]> = [
  ['the runtime', 'runtime'],
  ['a participant replica', me],
  ['another participant', { participantId: otherParticipant, replicaId: otherReplica }],
];

/** Whether the reader acts on the record once fully decoded: the rule the cheap look must never contradict. */
function actsOn(text: string, reader: MessageReader): boolean {
  const decoded = decodeMessage(text);
  if (!decoded.ok) {
    return false;
  }
  return reader === 'runtime'
    ? MESSAGE_ROUTES[decoded.message.messageType].direction === 'PARTICIPANT_TO_RUNTIME'
    : acceptsMessage(decoded.message, reader);
}

function examplesOf(type: MessageType): ContractExampleName[] {
  return (Object.keys(CONTRACT_EXAMPLES) as ContractExampleName[]).filter(
    (name) => exampleObject(name)['messageType'] === type,
  );
}

const ADDRESSES: ReadonlyArray<Record<string, unknown>> = [
  {},
  { participantId: me.participantId },
  { participantId: me.participantId.toUpperCase() },
  { participantId: me.participantId, replicaId: me.replicaId },
  { participantId: me.participantId, replicaId: myOtherReplica },
  { participantId: otherParticipant },
  { participantId: otherParticipant, replicaId: me.replicaId.toUpperCase() },
  { participantId: otherParticipant, replicaId: otherReplica },
  { participantId: null, replicaId: null },
  { participantId: otherParticipant, replicaId: null },
  { replicaId: me.replicaId },
  { replicaId: otherReplica },
  { participantId: otherParticipant, participantIdList: [me.participantId] },
  { participantIdList: [otherParticipant] },
];

/** The example with its addressing replaced, written in several ways JSON allows and some hostile ones. */
function variants(name: ContractExampleName): Array<[string, string]> {
  const base = exampleObject(name);
  delete base['participantId'];
  delete base['replicaId'];
  const type = String(base['messageType']);
  const other = MESSAGE_TYPES.find(
    (candidate) => MESSAGE_ROUTES[candidate].direction !== MESSAGE_ROUTES[type as MessageType].direction,
  )!;
  const out: Array<[string, string]> = [];
  ADDRESSES.forEach((address, index) => {
    const object = { ...base, ...address };
    const { messageType: _type, ...rest } = object;
    const plain = JSON.stringify(object);
    const body = plain.slice(1, -1);
    out.push(
      [`address ${index}`, plain],
      [`address ${index}, pretty-printed`, JSON.stringify(object, null, 2)],
      [`address ${index}, type last`, JSON.stringify({ ...rest, last: 1, messageType: type })],
      [`address ${index}, type repeated (the other type first)`, `{"messageType":"${other}",${body}}`],
      [`address ${index}, type repeated (the other type last)`, `{${body},"messageType":"${other}"}`],
      [`address ${index}, type repeated as null last`, `{${body},"messageType":null}`],
      [`address ${index}, type text inside a string value`, `{"message":"\\"messageType\\":\\"${other}\\"",${body}}`],
      [`address ${index}, type text in a nested object`, `{"properties":{"messageType":"${other}"},${body}}`],
      [
        `address ${index}, escaped type value`,
        plain.replace(`"messageType":"${type}"`, `"messageType":"${type.replace('_', '\\u005f')}"`),
      ],
      [`address ${index}, escaped type key`, plain.replace('"messageType"', '"message\\u0054ype"')],
      [`address ${index}, escaped key, other type in it`, `{${body},"messag\\u0065Type":"${other}"}`],
      [`address ${index}, backslash before the closing quote`, `{"note":"a\\\\",${body}}`],
      [`address ${index}, escaped quote then the type key`, `{"note":"a\\",\\"messageType\\":\\"${other}",${body}}`],
      [`address ${index}, participantId repeated`, `{${body},"participantId":"${otherParticipant}"}`],
      [`address ${index}, participantId repeated as null`, `{${body},"participantId":null}`],
      [`address ${index}, replicaId escaped`, `{${body},"replicaId":"${me.replicaId.replace('-', '\\u002d')}"}`],
      [`address ${index}, participantId a number`, `{${body},"participantId":7}`],
      [`address ${index}, truncated`, plain.slice(0, Math.floor(plain.length / 2))],
      [`address ${index}, trailing garbage`, `${plain} x`],
      [`address ${index}, two objects`, `${plain}${plain}`],
    );
  });
  const withoutType = { ...base, messageType: undefined };
  out.push(
    ['missing type', JSON.stringify(withoutType)],
    ['type null', JSON.stringify({ ...base, messageType: null })],
    ['type a number', JSON.stringify({ ...base, messageType: 7 })],
    ['type lower-cased', JSON.stringify({ ...base, messageType: type.toLowerCase() })],
    ['an array', `[${JSON.stringify(base)}]`],
    ['a string', JSON.stringify(JSON.stringify(base))],
    ['empty object', '{}'],
    ['empty text', ''],
  );
  return out;
}

describe('isForOthers (the look before the full decode)', () => {
  describe.each(MESSAGE_TYPES.map((type) => [type]))('%s', (type) => {
    const names = examplesOf(type);

    it('has an example to check', () => {
      expect(names.length).toBeGreaterThan(0);
    });

    it.each(READERS)('never drops a record %s acts on', (_label, reader) => {
      for (const name of names) {
        for (const [variant, text] of variants(name)) {
          const acts = actsOn(text, reader);
          const dropped = isForOthers(text, reader);
          if (acts && dropped) {
            throw new Error(`${name}, ${variant}: dropped although the reader acts on it: ${text}`);
          }
        }
      }
    });

    it('drops exactly what its rule covers among the valid plain records', () => {
      for (const name of names) {
        ADDRESSES.forEach((address) => {
          const base = exampleObject(name);
          delete base['participantId'];
          delete base['replicaId'];
          const text = JSON.stringify({ ...base, ...address });
          const decoded = decodeMessage(text);
          if (!decoded.ok) {
            return;
          }
          const toParticipant = MESSAGE_ROUTES[type].direction === 'RUNTIME_TO_PARTICIPANT';
          expect([name, address, isForOthers(text, 'runtime')]).toEqual([name, address, toParticipant]);
          if (!toParticipant) {
            expect([name, address, isForOthers(text, me)]).toEqual([name, address, true]);
            return;
          }
          const { participantId, replicaId } = decoded.message;
          const refusedByAddress =
            participantId !== undefined &&
            !(participantId === me.participantId && replicaId === undefined) &&
            replicaId !== me.replicaId;
          expect([name, address, isForOthers(text, me)]).toEqual([name, address, refusedByAddress]);
        });
      }
    });

    it('reads the addressing fields as JSON.parse does, or declines', () => {
      for (const name of names) {
        for (const [variant, text] of variants(name)) {
          const peeked = peekEnvelope(text);
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            continue;
          }
          if (peeked === undefined) {
            continue;
          }
          const object = parsed as Record<string, unknown>;
          const expected = {
            messageType: object['messageType'],
            ...(typeof object['participantId'] === 'string' ? { participantId: object['participantId'] } : {}),
            ...(typeof object['replicaId'] === 'string' ? { replicaId: object['replicaId'] } : {}),
          };
          expect([name, variant, peeked]).toEqual([name, variant, expected]);
        }
      }
    });
  });

  it('leaves records over the size limit to the decode, which refuses them as TOO_LARGE', () => {
    const text = JSON.stringify({ ...exampleObject('DEPLOY'), padding: 'x'.repeat(1_100_000) });
    expect(isForOthers(text, 'runtime')).toBe(false);
    expect(decodeMessage(text)).toMatchObject({ ok: false, code: 'TOO_LARGE' });
  });

  it('leaves legacy and unknown types to the decode, which counts them', () => {
    for (const messageType of ['PARTICIPANT_RESTART', 'PARTICIPANT_STATE_CHANGE', 'NO_SUCH_TYPE', 'constructor']) {
      const text = JSON.stringify({ ...exampleObject('DEPLOY'), messageType });
      expect(isForOthers(text, 'runtime')).toBe(false);
      expect(isForOthers(text, me)).toBe(false);
    }
  });

  it('declines what it cannot read plainly', () => {
    expect(peekEnvelope('{"messageType":"PARTICIPANT_PRIME"')).toBeUndefined();
    expect(peekEnvelope('{"messageType":"PARTICIPANT_PRIME",}')).toBeUndefined();
    expect(peekEnvelope('{"messageType" "PARTICIPANT_PRIME"}')).toBeUndefined();
    expect(peekEnvelope('{"messageType":"PARTICIPANT\\u005fPRIME"}')).toBeUndefined();
    expect(peekEnvelope('{"a":{"b":["}"]},"messageType":"PARTICIPANT_PRIME"}')).toEqual({
      messageType: 'PARTICIPANT_PRIME',
    });
  });
});
