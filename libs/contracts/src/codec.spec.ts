import {
  CONTRACT_EXAMPLES,
  DEFAULT_MAX_MESSAGE_BYTES,
  EXAMPLE_IDS,
  MESSAGE_TYPES,
  decodeMessage,
  encodeMessage,
  exampleJson,
  exampleObject,
  isMessageOfType,
  messageKey,
} from '@acm/contracts';
import type { ContractExampleName, DecodeFailureCode, DecodeResult, ParticipantMessage } from '@acm/contracts';

const exampleNames = Object.keys(CONTRACT_EXAMPLES) as ContractExampleName[];

function decodeOk(raw: string | Buffer): ParticipantMessage {
  const result = decodeMessage(raw);
  if (!result.ok) {
    throw new Error(`expected a valid message, got: ${result.reason}`);
  }
  return result.message;
}

function expectFailure(result: DecodeResult, code: DecodeFailureCode, reason: string): void {
  expect(result).toMatchObject({ ok: false, code, reason });
}

describe('participant message codec', () => {
  it('has an example for every message type', () => {
    const covered = new Set(Object.values(CONTRACT_EXAMPLES).map((example) => example.messageType));
    expect([...covered].sort()).toEqual([...MESSAGE_TYPES].sort());
  });

  describe.each(exampleNames)('example %s', (name) => {
    const original = exampleObject(name);

    it('decodes without losing any field (every field of the ONAP shape is modelled)', () => {
      expect(decodeOk(exampleJson(name))).toEqual(original);
    });

    it('re-encodes to the same JSON', () => {
      const { value } = encodeMessage(decodeOk(exampleJson(name)));
      expect(JSON.parse(value)).toEqual(original);
    });

    it('decodes from a Buffer as from a string', () => {
      expect(decodeOk(Buffer.from(exampleJson(name), 'utf8'))).toEqual(original);
    });

    it("keys the record by its instance for instance reports, else by ONAP's keys", () => {
      const reports = original['automationCompositionInfoList'] as Array<Record<string, unknown>> | undefined;
      const instanceKey =
        original['messageType'] === 'AUTOMATION_COMPOSITION_DEPLOY_ACK' ||
        original['messageType'] === 'AUTOMATION_COMPOSITION_STATECHANGE_ACK'
          ? (original['automationCompositionId'] as string)
          : original['messageType'] === 'PARTICIPANT_STATUS' && reports?.length === 1
            ? (reports[0]?.['automationCompositionId'] as string)
            : undefined;
      const expected =
        instanceKey ??
        (original['compositionId'] as string | undefined) ??
        (original['participantId'] as string | undefined) ??
        null;
      expect(encodeMessage(decodeOk(exampleJson(name))).key).toBe(expected);
    });
  });

  describe('encodeMessage', () => {
    it('omits undefined and null members, at any depth, but keeps array slots', () => {
      const message = {
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId: EXAMPLE_IDS.message,
        timestamp: '2026-01-01T00:00:00Z',
        participantId: undefined,
        replicaId: null,
        participantIdList: [EXAMPLE_IDS.participant],
      } as unknown as ParticipantMessage;
      expect(encodeMessage(message).value).toBe(
        `{"messageType":"PARTICIPANT_STATUS_REQ","messageId":"${EXAMPLE_IDS.message}","timestamp":"2026-01-01T00:00:00Z","participantIdList":["${EXAMPLE_IDS.participant}"]}`,
      );
      const nested = exampleObject('STATUS');
      (nested['automationCompositionInfoList'] as Array<Record<string, unknown>>)[0]!['lockState'] = null;
      const encoded = JSON.parse(encodeMessage(nested as unknown as ParticipantMessage).value) as Record<
        string,
        unknown
      >;
      expect((encoded['automationCompositionInfoList'] as Array<Record<string, unknown>>)[0]).not.toHaveProperty(
        'lockState',
      );
    });

    it('writes what the null-dropping replacer writes, whether or not it needs one', () => {
      const reference = (message: unknown): string =>
        JSON.stringify(message, function (this: unknown, _key: string, value: unknown) {
          return value === null && !Array.isArray(this) ? undefined : value;
        });
      const withToJson = { toJSON: () => ({ kept: 1, dropped: null }) };
      const cases: unknown[] = [
        ...(Object.keys(CONTRACT_EXAMPLES) as ContractExampleName[]).map((name) => exampleObject(name)),
        { ...exampleObject('ACK'), message: null },
        { ...exampleObject('STATUS'), participantIdList: [null, EXAMPLE_IDS.participant, null] },
        { ...exampleObject('STATUS'), nested: { deeper: [{ gone: null, kept: [null, { also: null }] }] } },
        { ...exampleObject('ACK'), at: new Date(Date.UTC(2026, 0, 1)) },
        { ...exampleObject('ACK'), custom: withToJson },
        { ...exampleObject('ACK'), deep: JSON.parse(`${'{"a":'.repeat(80)}null${'}'.repeat(80)}`) as unknown },
        { ...exampleObject('ACK'), deep: JSON.parse(`${'{"a":'.repeat(80)}1${'}'.repeat(80)}`) as unknown },
      ];
      for (const message of cases) {
        expect(encodeMessage(message as ParticipantMessage).value).toBe(reference(message));
      }
    });

    it.each([
      [
        'an element ACK by its instance',
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        { participantId: 'p', automationCompositionId: 'i' },
        'i',
      ],
      [
        'a STATUS about one instance by that instance',
        'PARTICIPANT_STATUS',
        { participantId: 'p', automationCompositionInfoList: [{ automationCompositionId: 'i' }] },
        'i',
      ],
      [
        'a heartbeat STATUS by its participant',
        'PARTICIPANT_STATUS',
        { participantId: 'p', automationCompositionInfoList: [] },
        'p',
      ],
    ])('messageKey: %s', (_label, messageType, fields, expected) => {
      const message = { messageType, ...fields } as unknown as ParticipantMessage;
      expect(messageKey(message)).toBe(expected);
    });

    it.each([
      ['compositionId wins over participantId', { compositionId: 'c', participantId: 'p' }, 'c'],
      ['participantId when no compositionId', { participantId: 'p' }, 'p'],
      ['no key at all (broadcast deregister ack)', {}, null],
    ])('messageKey: %s', (_label, fields, expected) => {
      const message = { messageType: 'PARTICIPANT_DEREGISTER_ACK', ...fields } as unknown as ParticipantMessage;
      expect(messageKey(message)).toBe(expected);
    });
  });

  describe('decodeMessage normalisation', () => {
    it('ignores unknown fields, at the top and nested, by dropping them', () => {
      const input = exampleObject('ACK');
      input['someFutureField'] = { a: 1 };
      input['result'] = true;
      const map = input['automationCompositionResultMap'] as Record<string, Record<string, unknown>>;
      map[EXAMPLE_IDS.element]!['restarting'] = false;
      const message = decodeOk(JSON.stringify(input));
      expect(message).toEqual(exampleObject('ACK'));
    });

    it.each(['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123456789Z', '2026-01-01T10:00:00.5+02:00'])(
      'accepts the Java Instant timestamp %s as written',
      (timestamp) => {
        const input = exampleObject('STATUS_REQ');
        input['timestamp'] = timestamp;
        expect(decodeOk(JSON.stringify(input)).timestamp).toBe(timestamp);
      },
    );

    it('treats null like an absent optional field', () => {
      const input = exampleObject('REGISTER');
      input['intermediaryVersion'] = null;
      input['compositionId'] = null;
      const message = decodeOk(JSON.stringify(input));
      expect(message).not.toHaveProperty('intermediaryVersion');
      expect(message).not.toHaveProperty('compositionId');
    });

    it('lower-cases UUIDs, as Java prints them, including map keys', () => {
      const input = exampleObject('ACK');
      input['participantId'] = EXAMPLE_IDS.participant.toUpperCase();
      input['automationCompositionResultMap'] = {
        [EXAMPLE_IDS.element.toUpperCase()]: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
      };
      const message = decodeOk(JSON.stringify(input));
      expect(message.participantId).toBe(EXAMPLE_IDS.participant);
      expect(isMessageOfType(message, 'AUTOMATION_COMPOSITION_STATECHANGE_ACK')).toBe(true);
      if (isMessageOfType(message, 'AUTOMATION_COMPOSITION_STATECHANGE_ACK')) {
        expect(Object.keys(message.automationCompositionResultMap)).toEqual([EXAMPLE_IDS.element]);
      }
    });

    it('reads only the lower-case automationcompositionList of a SYNC, like ONAP', () => {
      const input = exampleObject('SYNC_DONE');
      input['automationCompositionList'] = input['automationcompositionList'];
      delete input['automationcompositionList'];
      const message = decodeOk(JSON.stringify(input));
      expect(message).not.toHaveProperty('automationCompositionList');
      expect(message).not.toHaveProperty('automationcompositionList');
    });

    it('keeps property maps untouched (they are user data)', () => {
      const input = exampleObject('DEPLOY');
      const deployList = input['participantUpdatesList'] as Array<{ acElementList: Array<Record<string, unknown>> }>;
      deployList[0]!.acElementList[0]!['properties'] = { nested: { a: [1, null, 'x'] }, n: null };
      const message = decodeOk(JSON.stringify(input));
      expect(message).toEqual(input);
    });

    it('accepts a payload of exactly maxBytes and refuses one byte more, counting UTF-8 bytes', () => {
      const json = exampleJson('DEREGISTER_ACK').replace('Participant Deregister Ack', 'é'.repeat(10));
      const bytes = Buffer.byteLength(json, 'utf8');
      expect(decodeMessage(json, { maxBytes: bytes }).ok).toBe(true);
      expectFailure(
        decodeMessage(json, { maxBytes: bytes - 1 }),
        'TOO_LARGE',
        `message: larger than ${bytes - 1} bytes`,
      );
      expect(decodeMessage(Buffer.from(json), { maxBytes: bytes - 1 }).ok).toBe(false);
    });

    it('refuses payloads above 1 MiB by default, before parsing', () => {
      const huge = '{' + ' '.repeat(DEFAULT_MAX_MESSAGE_BYTES) + '}';
      expectFailure(decodeMessage(huge), 'TOO_LARGE', `message: larger than ${DEFAULT_MAX_MESSAGE_BYTES} bytes`);
    });
  });

  describe('element observation (an extension ONAP participants never send)', () => {
    it('decodes a STATUS whose element info carries an observation, and one without (ONAP’s)', () => {
      const message = exampleObject('STATUS');
      const infos = message['automationCompositionInfoList'] as Array<{ elements: Array<Record<string, unknown>> }>;
      const observation = { present: true, healthy: false, reason: 'probe failed', properties: { replicas: 2 } };
      infos[0]!.elements[0]!['observation'] = observation;
      const decoded = decodeOk(JSON.stringify(message));
      expect(decoded).toMatchObject({ automationCompositionInfoList: [{ elements: [{ observation }] }] });
      expect(decodeOk(exampleJson('STATUS'))).not.toHaveProperty(
        'automationCompositionInfoList.0.elements.0.observation',
      );
    });
  });

  describe('decodeMessage refusals', () => {
    type Mutation = (message: Record<string, unknown>) => void;
    const set =
      (path: string, value: unknown): Mutation =>
      (message) => {
        const keys = path.split('.');
        let target: Record<string, unknown> = message;
        for (const key of keys.slice(0, -1)) {
          target = target[key] as Record<string, unknown>;
        }
        target[keys[keys.length - 1]!] = value;
      };
    const remove =
      (field: string): Mutation =>
      (message) => {
        delete message[field];
      };
    const element = EXAMPLE_IDS.element;

    const cases: Array<[string, ContractExampleName, Mutation, string]> = [
      ['a missing messageId', 'PRIME', remove('messageId'), 'PARTICIPANT_PRIME.messageId: is required'],
      ['a bad messageId', 'PRIME', set('messageId', 'nope'), 'PARTICIPANT_PRIME.messageId: must be a UUID'],
      ['a missing timestamp', 'PRIME', remove('timestamp'), 'PARTICIPANT_PRIME.timestamp: is required'],
      [
        'a non ISO timestamp',
        'PRIME',
        set('timestamp', '01/01/2026'),
        'PARTICIPANT_PRIME.timestamp: must be an ISO-8601 timestamp',
      ],
      [
        'a prime without compositionId',
        'PRIME',
        remove('compositionId'),
        'PARTICIPANT_PRIME.compositionId: is required',
      ],
      [
        'an unknown primeOrder',
        'PRIME',
        set('primeOrder', 'REPRIME'),
        'PARTICIPANT_PRIME.primeOrder: must be one of NONE|PRIME|DEPRIME',
      ],
      [
        'a participantIdList that is not a list',
        'PRIME',
        set('participantIdList', EXAMPLE_IDS.participant),
        'PARTICIPANT_PRIME.participantIdList: must be an array',
      ],
      [
        'a bad id in participantIdList',
        'PRIME',
        set('participantIdList', [EXAMPLE_IDS.participant, 'x']),
        'PARTICIPANT_PRIME.participantIdList[1]: must be a UUID',
      ],
      [
        'a prime ack with a bad compositionId',
        'PRIME_ACK',
        set('compositionId', '123'),
        'PARTICIPANT_PRIME_ACK.compositionId: must be a UUID',
      ],
      [
        'a prime ack reporting a transitional state',
        'PRIME_ACK',
        set('compositionState', 'PRIMING'),
        'PARTICIPANT_PRIME_ACK.compositionState: must be one of PRIMED|COMMISSIONED',
      ],
      [
        'a prime ack answering TIMEOUT',
        'PRIME_ACK',
        set('stateChangeResult', 'TIMEOUT'),
        'PARTICIPANT_PRIME_ACK.stateChangeResult: must be one of NO_ERROR|FAILED',
      ],
      [
        'a prime ack without result',
        'PRIME_ACK',
        remove('stateChangeResult'),
        'PARTICIPANT_PRIME_ACK.stateChangeResult: is required',
      ],
      [
        'a prime ack without participantId',
        'PRIME_ACK',
        remove('participantId'),
        'PARTICIPANT_PRIME_ACK.participantId: is required',
      ],
      [
        'an ack without automationCompositionId',
        'ACK',
        remove('automationCompositionId'),
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK.automationCompositionId: is required',
      ],
      [
        'a deploy ack without automationCompositionId',
        'DEPLOY_ACK',
        remove('automationCompositionId'),
        'AUTOMATION_COMPOSITION_DEPLOY_ACK.automationCompositionId: is required',
      ],
      [
        'an ack answering TIMEOUT',
        'ACK',
        set('stateChangeResult', 'TIMEOUT'),
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK.stateChangeResult: must be one of NO_ERROR|FAILED',
      ],
      [
        'an ack with a null result',
        'ACK',
        set('stateChangeResult', null),
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK.stateChangeResult: is required',
      ],
      [
        'an ack without result map',
        'ACK',
        remove('automationCompositionResultMap'),
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK.automationCompositionResultMap: is required',
      ],
      [
        'an ack keyed by something else than element ids',
        'ACK',
        set('automationCompositionResultMap', { 'not-a-uuid': { deployState: 'DEPLOYED', lockState: 'LOCKED' } }),
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK.automationCompositionResultMap.not-a-uuid: key must be a UUID',
      ],
      [
        'an ack with an unknown element deployState',
        'ACK',
        set(`automationCompositionResultMap.${element}.deployState`, 'RUNNING'),
        `AUTOMATION_COMPOSITION_STATECHANGE_ACK.automationCompositionResultMap.${element}.deployState: must be one of DEPLOYED|DEPLOYING|UNDEPLOYED|UNDEPLOYING|DELETING|DELETED|UPDATING|MIGRATING|MIGRATION_REVERTING|UPDATE_REVERTING`,
      ],
      [
        'an ack leaving an element transitional without a stage',
        'ACK',
        set(`automationCompositionResultMap.${element}.deployState`, 'DEPLOYING'),
        `AUTOMATION_COMPOSITION_STATECHANGE_ACK.automationCompositionResultMap.${element}.deployState: must not be transitional when stage is absent`,
      ],
      [
        'an ack leaving a lock transitional without a stage',
        'ACK',
        set(`automationCompositionResultMap.${element}.lockState`, 'LOCKING'),
        `AUTOMATION_COMPOSITION_STATECHANGE_ACK.automationCompositionResultMap.${element}.lockState: must not be transitional when stage is absent`,
      ],
      [
        'an ack element without lockState',
        'ACK',
        set(`automationCompositionResultMap.${element}.lockState`, undefined),
        `AUTOMATION_COMPOSITION_STATECHANGE_ACK.automationCompositionResultMap.${element}.lockState: is required`,
      ],
      [
        'a stage that is not an integer',
        'STAGE_ACK',
        set('stage', 1.5),
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK.stage: must be a 32-bit integer',
      ],
      [
        'a deploy without startPhase',
        'DEPLOY',
        remove('startPhase'),
        'AUTOMATION_COMPOSITION_DEPLOY.startPhase: is required',
      ],
      [
        'a deploy with a string startPhase',
        'DEPLOY',
        set('startPhase', '0'),
        'AUTOMATION_COMPOSITION_DEPLOY.startPhase: must be a 32-bit integer',
      ],
      [
        'a deploy with a non-boolean firstStartPhase',
        'DEPLOY',
        set('firstStartPhase', 'true'),
        'AUTOMATION_COMPOSITION_DEPLOY.firstStartPhase: must be a boolean',
      ],
      [
        'a deploy element with a bad id',
        'DEPLOY',
        (message) => {
          const list = message['participantUpdatesList'] as Array<{ acElementList: Array<Record<string, unknown>> }>;
          list[0]!.acElementList[0]!['id'] = 'e';
        },
        'AUTOMATION_COMPOSITION_DEPLOY.participantUpdatesList[0].acElementList[0].id: must be a UUID',
      ],
      [
        'a deploy element definition without version',
        'DEPLOY',
        (message) => {
          const list = message['participantUpdatesList'] as Array<{ acElementList: Array<Record<string, unknown>> }>;
          list[0]!.acElementList[0]!['definition'] = { name: 'x' };
        },
        'AUTOMATION_COMPOSITION_DEPLOY.participantUpdatesList[0].acElementList[0].definition.version: is required',
      ],
      [
        'a DTO with an unknown element state',
        'DEPLOY',
        (message) => {
          const list = message['participantDtoList'] as Array<{ elementDtos: Array<Record<string, unknown>> }>;
          list[0]!.elementDtos[0]!['compositionElement'] = { state: 'GONE' };
        },
        'AUTOMATION_COMPOSITION_DEPLOY.participantDtoList[0].elementDtos[0].compositionElement.state: must be one of PRESENT|NOT_PRESENT|REMOVED|NEW',
      ],
      [
        'properties that are not an object',
        'DEPLOY',
        (message) => {
          const list = message['participantUpdatesList'] as Array<{ acElementList: Array<Record<string, unknown>> }>;
          list[0]!.acElementList[0]!['properties'] = [1, 2];
        },
        'AUTOMATION_COMPOSITION_DEPLOY.participantUpdatesList[0].acElementList[0].properties: must be an object',
      ],
      [
        'a state change with an unknown lock order',
        'STATE_CHANGE',
        set('lockOrderedState', 'FREEZE'),
        'AUTOMATION_COMPOSITION_STATE_CHANGE.lockOrderedState: must be one of NONE|UNLOCK|LOCK',
      ],
      ['a register without replicaId', 'REGISTER', remove('replicaId'), 'PARTICIPANT_REGISTER.replicaId: is required'],
      [
        'a register with a supported type lacking typeVersion',
        'REGISTER',
        set('participantSupportedElementType', [{ typeName: 'x' }]),
        'PARTICIPANT_REGISTER.participantSupportedElementType[0].typeVersion: is required',
      ],
      [
        'a register ack without responseTo',
        'REGISTER_ACK',
        remove('responseTo'),
        'PARTICIPANT_REGISTER_ACK.responseTo: is required',
      ],
      [
        'a status with an unknown participant state',
        'STATUS',
        set('state', 'MAYBE'),
        'PARTICIPANT_STATUS.state: must be one of ON_LINE|OFF_LINE',
      ],
      [
        'a status element info without element id',
        'STATUS',
        (message) => {
          const list = message['automationCompositionInfoList'] as Array<{ elements: Array<Record<string, unknown>> }>;
          delete list[0]!.elements[0]!['automationCompositionElementId'];
        },
        'PARTICIPANT_STATUS.automationCompositionInfoList[0].elements[0].automationCompositionElementId: is required',
      ],
      [
        'a sync with an unknown composition state',
        'SYNC_DONE',
        set('state', 'READY'),
        'PARTICIPANT_SYNC_MSG.state: must be one of COMMISSIONED|PRIMING|PRIMED|DEPRIMING',
      ],
      [
        'a sync excluding a non-uuid replica',
        'SYNC_DONE',
        set('excludeReplicas', ['r1']),
        'PARTICIPANT_SYNC_MSG.excludeReplicas[0]: must be a UUID',
      ],
      [
        'a migration with a bad target',
        'MIGRATION',
        set('compositionTargetId', 'target'),
        'AUTOMATION_COMPOSITION_MIGRATION.compositionTargetId: must be a UUID',
      ],
      [
        'a prepare with a non-boolean preDeploy',
        'PREPARE',
        set('preDeploy', 1),
        'AUTOMATION_COMPOSITION_PREPARE.preDeploy: must be a boolean',
      ],
      [
        'a properties update without instance',
        'PROPS_UPDATE',
        remove('automationCompositionId'),
        'PROPERTIES_UPDATE.automationCompositionId: is required',
      ],
      [
        'a req-sync without participantId',
        'REQ_SYNC',
        remove('participantId'),
        'PARTICIPANT_REQ_SYNC_MSG.participantId: is required',
      ],
      [
        'a prime DTO map value that is not an object',
        'PRIME',
        (message) => {
          const list = message['primeDtoList'] as Array<{ compositionDto: Record<string, unknown> }>;
          list[0]!.compositionDto['inPropertiesMap'] = { 'a 1.0.0': 'x' };
        },
        'PARTICIPANT_PRIME.primeDtoList[0].compositionDto.inPropertiesMap.a 1.0.0: must be an object',
      ],
      [
        'an element observation without its presence',
        'STATUS',
        (message) => {
          const infos = message['automationCompositionInfoList'] as Array<{ elements: Array<Record<string, unknown>> }>;
          infos[0]!.elements[0]!['observation'] = { healthy: true };
        },
        'PARTICIPANT_STATUS.automationCompositionInfoList[0].elements[0].observation.present: is required',
      ],
    ];

    it.each(cases)('refuses %s', (_label, example, mutate, reason) => {
      const message = exampleObject(example);
      mutate(message);
      const result = decodeMessage(JSON.stringify(message));
      expectFailure(result, 'INVALID_FIELD', reason);
      expect(result).toMatchObject({ messageType: message['messageType'] });
    });

    it.each<[string, string | Buffer, DecodeFailureCode, string]>([
      ['invalid JSON', '{"messageType":', 'INVALID_JSON', 'message: not valid UTF-8 JSON'],
      ['an empty payload', '', 'INVALID_JSON', 'message: not valid UTF-8 JSON'],
      ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'INVALID_JSON', 'message: not valid UTF-8 JSON'],
      ['a JSON array', '[]', 'NOT_AN_OBJECT', 'message: must be a JSON object'],
      ['a JSON string', '"PARTICIPANT_STATUS"', 'NOT_AN_OBJECT', 'message: must be a JSON object'],
      ['JSON null', 'null', 'NOT_AN_OBJECT', 'message: must be a JSON object'],
      ['no messageType', '{"messageId":"x"}', 'MISSING_TYPE', 'messageType: is required'],
      ['a null messageType', '{"messageType":null}', 'MISSING_TYPE', 'messageType: is required'],
      ['a numeric messageType', '{"messageType":7}', 'MISSING_TYPE', 'messageType: must be a string'],
      [
        'an unknown messageType',
        '{"messageType":"HELLO"}',
        'UNKNOWN_TYPE',
        'messageType: unknown message type "HELLO"',
      ],
      [
        'a lower-case messageType',
        '{"messageType":"participant_status"}',
        'UNKNOWN_TYPE',
        'messageType: unknown message type "participant_status"',
      ],
      [
        'the legacy PARTICIPANT_STATE_CHANGE',
        '{"messageType":"PARTICIPANT_STATE_CHANGE"}',
        'LEGACY_TYPE',
        'messageType: PARTICIPANT_STATE_CHANGE is a legacy type that is no longer accepted',
      ],
      [
        'the legacy PARTICIPANT_RESTART',
        '{"messageType":"PARTICIPANT_RESTART"}',
        'LEGACY_TYPE',
        'messageType: PARTICIPANT_RESTART is a legacy type that is no longer accepted',
      ],
    ])('refuses %s', (_label, raw, code, reason) => {
      const result = decodeMessage(raw);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.code).toBe(code);
        expect(result.reason.startsWith(reason)).toBe(true);
      }
    });

    it('reports the messageType of refused unknown and legacy types, not of typeless payloads', () => {
      expect(decodeMessage('{"messageType":"HELLO"}')).toMatchObject({ messageType: 'HELLO' });
      expect(decodeMessage('{"messageType":"PARTICIPANT_RESTART"}')).toMatchObject({
        messageType: 'PARTICIPANT_RESTART',
      });
      expect(decodeMessage('{}')).not.toHaveProperty('messageType');
    });

    it('does not let a __proto__ member reach the prototype', () => {
      const raw = exampleJson('STATUS_REQ').replace('{', '{"__proto__":{"polluted":true},');
      const message = decodeOk(raw);
      expect((message as unknown as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });
  });
});
