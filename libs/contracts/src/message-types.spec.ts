import {
  ACK_MESSAGE_TYPES,
  DEFAULT_OPERATION_TOPIC,
  DEFAULT_SYNC_TOPIC,
  MESSAGE_ROUTES,
  MESSAGE_TYPES,
  isAckMessageType,
  isMessageType,
  topicFor,
} from '@acm/contracts';
import type { MessageType } from '@acm/contracts';

describe('message types and routes', () => {
  it("uses ONAP's topic names", () => {
    expect(DEFAULT_OPERATION_TOPIC).toBe('policy-acruntime-participant');
    expect(DEFAULT_SYNC_TOPIC).toBe('acm-ppnt-sync');
  });

  it.each<[string, MessageType[]]>([
    [
      'runtime → participant on the operation topic',
      [
        'PARTICIPANT_PRIME',
        'AUTOMATION_COMPOSITION_DEPLOY',
        'AUTOMATION_COMPOSITION_STATE_CHANGE',
        'AUTOMATION_COMPOSITION_MIGRATION',
        'AUTOMATION_COMPOSITION_PREPARE',
        'PROPERTIES_UPDATE',
        'PARTICIPANT_DEREGISTER_ACK',
      ],
    ],
    [
      'runtime → participant on the sync topic',
      ['PARTICIPANT_REGISTER_ACK', 'PARTICIPANT_STATUS_REQ', 'PARTICIPANT_SYNC_MSG'],
    ],
    [
      'participant → runtime on the operation topic',
      [
        'PARTICIPANT_REGISTER',
        'PARTICIPANT_DEREGISTER',
        'PARTICIPANT_STATUS',
        'PARTICIPANT_PRIME_ACK',
        'AUTOMATION_COMPOSITION_DEPLOY_ACK',
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        'PARTICIPANT_REQ_SYNC_MSG',
      ],
    ],
  ])('routes %s', (label, types) => {
    const [direction, topic] = label.startsWith('runtime')
      ? ['RUNTIME_TO_PARTICIPANT', label.endsWith('sync topic') ? 'sync' : 'operation']
      : ['PARTICIPANT_TO_RUNTIME', 'operation'];
    for (const type of types) {
      expect(MESSAGE_ROUTES[type]).toEqual({ direction, topic });
    }
  });

  it('routes all 17 types, and only them', () => {
    expect(MESSAGE_TYPES).toHaveLength(17);
    expect(Object.keys(MESSAGE_ROUTES).sort()).toEqual([...MESSAGE_TYPES].sort());
  });

  it('resolves topic names, default or configured', () => {
    expect(topicFor('PARTICIPANT_SYNC_MSG')).toBe(DEFAULT_SYNC_TOPIC);
    expect(topicFor('PARTICIPANT_PRIME_ACK')).toBe(DEFAULT_OPERATION_TOPIC);
    expect(topicFor('PARTICIPANT_STATUS_REQ', { operation: 'op', sync: 'sy' })).toBe('sy');
  });

  it('tells ack envelopes apart', () => {
    expect(ACK_MESSAGE_TYPES.every(isAckMessageType)).toBe(true);
    expect(isAckMessageType('PARTICIPANT_PRIME')).toBe(false);
    expect(isMessageType('PARTICIPANT_RESTART')).toBe(false);
    expect(isMessageType('PARTICIPANT_SYNC_MSG')).toBe(true);
  });
});
