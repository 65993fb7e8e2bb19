import { loadRuntimeConfig } from './runtime.config';

describe('loadRuntimeConfig: registration limits', () => {
  it('defaults to limits a real fleet never reaches', () => {
    const config = loadRuntimeConfig({});
    expect({
      maxParticipants: config.maxParticipants,
      maxParticipantReplicas: config.maxParticipantReplicas,
      registrationRateLimit: config.registrationRateLimit,
      registrationRateWindowMs: config.registrationRateWindowMs,
    }).toEqual({
      maxParticipants: 1000,
      maxParticipantReplicas: 64,
      registrationRateLimit: 600,
      registrationRateWindowMs: 60000,
    });
  });

  it('reads the settings and refuses values out of range, naming each variable', () => {
    const config = loadRuntimeConfig({
      MAX_PARTICIPANTS: '5',
      MAX_PARTICIPANT_REPLICAS: '2',
      REGISTRATION_RATE_LIMIT: '10',
      REGISTRATION_RATE_WINDOW: '1000',
    });
    expect([
      config.maxParticipants,
      config.maxParticipantReplicas,
      config.registrationRateLimit,
      config.registrationRateWindowMs,
    ]).toEqual([5, 2, 10, 1000]);
    expect(() =>
      loadRuntimeConfig({
        MAX_PARTICIPANTS: '0',
        MAX_PARTICIPANT_REPLICAS: 'many',
        REGISTRATION_RATE_LIMIT: '-1',
        REGISTRATION_RATE_WINDOW: '10',
      }),
    ).toThrow(
      /MAX_PARTICIPANTS: must be an integer from 1[\s\S]*MAX_PARTICIPANT_REPLICAS: must be an integer[\s\S]*REGISTRATION_RATE_LIMIT: must be an integer[\s\S]*REGISTRATION_RATE_WINDOW: must be an integer from 100/,
    );
  });
});
