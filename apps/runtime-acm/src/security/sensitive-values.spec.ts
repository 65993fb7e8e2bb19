import type { CompositionDefinition, InstanceElement } from '@acm/domain';
import { DomainError } from '@acm/domain';
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

const definition = {
  serviceTemplate: {
    tosca_definitions_version: 'tosca_simple_yaml_1_3',
    data_types: { 'acm.Login': { properties: { secret: { type: 'string', metadata: { sensitive: 'true' } } } } },
    node_types: {
      'acm.Element': {
        properties: {
          token: { type: 'string', metadata: { sensitive: true } },
          logins: { type: 'list', entry_schema: { type: 'acm.Login' } },
        },
      },
    },
    topology_template: { node_templates: { element: { type: 'acm.Element' } } },
  },
} as unknown as CompositionDefinition;

function element(properties: Record<string, unknown>): Record<string, InstanceElement> {
  return { e1: { id: 'e1', definition: { name: 'element', version: '1.0.0' }, properties } as InstanceElement };
}

describe('SensitiveValues.protect', () => {
  const cipher = new PropertyCipher(KEY);
  const on = sensitiveValues({ MSG_ENABLE_ENCRYPTION: 'true' });

  it('encrypts the flagged property and the data-type field inside every map of a list, as ONAP looks for them', () => {
    const given = element({
      token: 't',
      logins: [
        { user: 'a', secret: 's1' },
        { user: 'b', secret: 's2' },
      ],
      x: 'y',
    });
    const stored = on.protect(definition, given)['e1']?.properties as {
      token: string;
      logins: Array<{ user: string; secret: string }>;
      x: string;
    };
    expect(cipher.decrypt(stored.token)).toBe('t');
    expect(stored.logins.map((login) => login.user)).toEqual(['a', 'b']);
    expect(stored.logins.map((login) => cipher.decrypt(login.secret))).toEqual(['s1', 's2']);
    expect(stored.x).toBe('y');
    expect(given['e1']?.properties['token']).toBe('t');
  });

  it('keeps the stored secret where an update sends the mask back, also inside a list', () => {
    const stored = on.protect(definition, element({ token: 't', logins: [{ secret: 's1' }] }));
    const again = on.protect(
      definition,
      element({ token: SENSITIVE_MASK, logins: [{ secret: SENSITIVE_MASK }] }),
      stored,
    );
    expect(again['e1']?.properties).toEqual(stored['e1']?.properties);
  });

  it('lists every problem of a request in one refusal', () => {
    const refusal = (): unknown => on.protect(definition, element({ token: 7, logins: [{ secret: SENSITIVE_MASK }] }));
    expect(refusal).toThrow(DomainError);
    expect(refusal).toThrow(
      'elements.e1.properties.token: a sensitive property (metadata.sensitive) must be a string to be encrypted, ' +
        'got number\nelements.e1.properties.logins[0].secret: ****** is how answers mask a sensitive value; give ' +
        'the value itself',
    );
  });

  it('stores values as given when encryption is off, as ONAP does', () => {
    const given = element({ token: 't', logins: [{ secret: 7 }] });
    expect(sensitiveValues({}).protect(definition, given)).toEqual(given);
  });
});
