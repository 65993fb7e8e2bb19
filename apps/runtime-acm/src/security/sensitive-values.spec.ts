import { loadRuntimeConfig } from '../config/runtime.config';
import { PropertyCipher } from './property-cipher';
import { SENSITIVE_MASK, SensitiveValues, maskSensitive } from './sensitive-values';

const KEY = 'unit test passphrase';

function sensitiveValues(env: Record<string, string>): SensitiveValues {
  return new SensitiveValues(loadRuntimeConfig({ MSG_ENCRYPTION_KEY: KEY, ...env }));
}

describe(SensitiveValues.name, () => {
  const cipher = new PropertyCipher(KEY);
  const message = JSON.stringify({
    messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
    participantUpdatesList: [{ acElementList: [{ properties: { baseUrl: cipher.encrypt('http://secret'), n: 1 } }] }],
    participantDtoList: [
      { elementDtos: [{ instanceElementTarget: { inProperties: { c: { p: cipher.encrypt('pw') } } } }] },
    ],
  });

  it('decrypts every encrypted value of a message as it leaves, wherever the message carries it', () => {
    const sent = JSON.parse(sensitiveValues({ MSG_ENABLE_ENCRYPTION: 'true' }).revealInMessage(message)) as {
      participantUpdatesList: Array<{ acElementList: Array<{ properties: Record<string, unknown> }> }>;
      participantDtoList: Array<{ elementDtos: Array<{ instanceElementTarget: { inProperties: unknown } }> }>;
    };
    expect(sent.participantUpdatesList[0]?.acElementList[0]?.properties).toEqual({ baseUrl: 'http://secret', n: 1 });
    expect(sent.participantDtoList[0]?.elementDtos[0]?.instanceElementTarget.inProperties).toEqual({ c: { p: 'pw' } });
  });

  it('sends a value another key wrote as stored rather than block the outbox', () => {
    const foreign = JSON.stringify({ properties: { baseUrl: new PropertyCipher('other').encrypt('x') } });
    expect(sensitiveValues({ MSG_ENABLE_ENCRYPTION: 'true' }).revealInMessage(foreign)).toBe(foreign);
  });

  it('leaves messages untouched when encryption is off', () => {
    expect(sensitiveValues({}).revealInMessage(message)).toBe(message);
  });

  it('masks encrypted values at any depth and leaves the rest', () => {
    const value = { a: cipher.encrypt('s'), b: [{ c: cipher.encrypt('t') }, 'plain'], d: 4 };
    expect(maskSensitive(value)).toEqual({ a: SENSITIVE_MASK, b: [{ c: SENSITIVE_MASK }, 'plain'], d: 4 });
  });
});
