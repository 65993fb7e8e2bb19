import type { ParticipantLogLevel } from '../types';
import { warningsAndErrors } from './kafka-bus';

describe('the Kafka bus of a participant process', () => {
  it("passes on the Kafka client's warnings and errors, not its chatter", () => {
    const logged: Array<[ParticipantLogLevel, string]> = [];
    const logger = warningsAndErrors((level, message) => logged.push([level, message]));
    logger('debug', 'fetching');
    logger('info', 'leader elected');
    logger('warn', 'retrying');
    logger('error', 'crashed');
    expect(logged).toEqual([
      ['warn', 'retrying'],
      ['error', 'crashed'],
    ]);
  });
});
