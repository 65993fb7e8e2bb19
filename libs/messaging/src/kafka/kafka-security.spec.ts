import { parseJaasConfig, readKafkaSecurity } from './kafka-security';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const files: Record<string, string> = { '/tls/ca.crt': PEM, '/tls/client.crt': PEM, '/tls/client.key': PEM };
const readFile = (path: string): string => {
  const content = files[path];
  if (content === undefined) {
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  }
  return content;
};
const read = (env: Record<string, string>) => readKafkaSecurity(env, readFile);

const SCRAM_JAAS =
  'org.apache.kafka.common.security.scram.ScramLoginModule required username="acm" password="s3cr\\"et";';

describe('readKafkaSecurity', () => {
  it('is PLAINTEXT with nothing set, and reads no file', () => {
    expect(
      readKafkaSecurity({}, () => {
        throw new Error('no file is read');
      }),
    ).toEqual({
      security: { protocol: 'PLAINTEXT' },
      problems: [],
    });
  });

  it.each([
    ['PLAIN', 'plain'],
    ['SCRAM-SHA-256', 'scram-sha-256'],
    ['scram-sha-512', 'scram-sha-512'],
  ])('maps SASL_SSL with %s and ONAP-style JAAS to kafkajs options', (mechanism, kafkajs) => {
    const module = mechanism === 'PLAIN' ? 'plain.PlainLoginModule' : 'scram.ScramLoginModule';
    const { security, problems } = read({
      KAFKA_SECURITY_PROTOCOL: 'sasl_ssl',
      KAFKA_SASL_MECHANISM: mechanism,
      KAFKA_SASL_JAAS_CONFIG: `org.apache.kafka.common.security.${module} required username="acm" password="pw";`,
      KAFKA_SSL_CA_FILE: '/tls/ca.crt',
    });
    expect(problems).toEqual([]);
    expect(security).toEqual({
      protocol: 'SASL_SSL',
      ssl: { ca: PEM },
      sasl: { mechanism: kafkajs, username: 'acm', password: 'pw' },
    });
  });

  it('takes a user name and password instead of JAAS, and a client certificate for mutual TLS', () => {
    const { security, problems } = read({
      KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'acm',
      KAFKA_SASL_PASSWORD: 'pw',
      KAFKA_SSL_CERT_FILE: '/tls/client.crt',
      KAFKA_SSL_KEY_FILE: '/tls/client.key',
      KAFKA_SSL_KEY_PASSWORD: 'key-pw',
    });
    expect(problems).toEqual([]);
    expect(security).toEqual({
      protocol: 'SASL_SSL',
      ssl: { cert: PEM, key: PEM, passphrase: 'key-pw' },
      sasl: { mechanism: 'scram-sha-512', username: 'acm', password: 'pw' },
    });
  });

  it('uses the system CAs when SSL names no CA file', () => {
    expect(read({ KAFKA_SECURITY_PROTOCOL: 'SSL' })).toEqual({ security: { protocol: 'SSL', ssl: {} }, problems: [] });
  });

  it('lists every problem at once', () => {
    const { problems } = read({
      KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
      KAFKA_SASL_MECHANISM: 'GSSAPI',
      KAFKA_SASL_JAAS_CONFIG: 'not jaas',
      KAFKA_SSL_CA_FILE: '/tls/missing.crt',
      KAFKA_SSL_CERT_FILE: '/tls/client.crt',
    });
    expect(problems).toEqual([
      'KAFKA_SSL_CA_FILE: cannot read "/tls/missing.crt" (ENOENT)',
      'KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE: a client certificate needs both, or neither',
      'KAFKA_SASL_MECHANISM: must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 with SASL_SSL, got "GSSAPI"',
      'KAFKA_SASL_JAAS_CONFIG: must read `<LoginModule> required username="..." password="...";`',
    ]);
  });

  it.each([
    [{ KAFKA_SECURITY_PROTOCOL: 'TLS' }, 'KAFKA_SECURITY_PROTOCOL: must be one of'],
    [{ KAFKA_SECURITY_PROTOCOL: 'SASL_PLAINTEXT', KAFKA_SASL_MECHANISM: 'PLAIN' }, 'required with SASL_PLAINTEXT'],
    [
      { KAFKA_SECURITY_PROTOCOL: 'SASL_SSL', KAFKA_SASL_MECHANISM: 'PLAIN', KAFKA_SASL_JAAS_CONFIG: SCRAM_JAAS },
      'PLAIN needs org.apache.kafka.common.security.plain.PlainLoginModule',
    ],
    [
      {
        KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
        KAFKA_SASL_JAAS_CONFIG: SCRAM_JAAS,
        KAFKA_SASL_USERNAME: 'acm',
      },
      'set one or the other',
    ],
    [
      {
        KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
        KAFKA_SASL_JAAS_CONFIG: 'org.apache.kafka.common.security.scram.ScramLoginModule required username="acm";',
      },
      'must give username="..." and password="..."',
    ],
    [{ KAFKA_SSL_CA_FILE: '/tls/ca.crt' }, 'KAFKA_SSL_CA_FILE: is set, but KAFKA_SECURITY_PROTOCOL PLAINTEXT'],
    [{ KAFKA_SECURITY_PROTOCOL: 'SSL', KAFKA_SASL_JAAS_CONFIG: SCRAM_JAAS }, 'does not use SASL'],
  ])('refuses %j', (env, problem) => {
    expect(read(env).problems.join('\n')).toContain(problem);
  });

  it('refuses a CA file that is not PEM', () => {
    files['/tls/ca.jks'] = '\u00fe\u00ed\u00fe\u00ed binary key store';
    expect(read({ KAFKA_SECURITY_PROTOCOL: 'SSL', KAFKA_SSL_CA_FILE: '/tls/ca.jks' }).problems).toEqual([
      'KAFKA_SSL_CA_FILE: "/tls/ca.jks" is not a PEM file (no -----BEGIN line)',
    ]);
  });

  it('never puts a password into a problem', () => {
    const { problems } = read({
      KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
      KAFKA_SASL_MECHANISM: 'PLAIN',
      KAFKA_SASL_JAAS_CONFIG: SCRAM_JAAS,
    });
    expect(problems).toHaveLength(1);
    expect(problems.join('\n')).not.toContain('s3cr');
  });
});

describe('parseJaasConfig', () => {
  it('reads quoted and bare options, with escapes', () => {
    expect(parseJaasConfig(SCRAM_JAAS)).toEqual({
      loginModule: 'org.apache.kafka.common.security.scram.ScramLoginModule',
      options: { username: 'acm', password: 's3cr"et' },
    });
    expect(parseJaasConfig('a.B required tokenauth=true username="u" password="p"')).toEqual({
      loginModule: 'a.B',
      options: { tokenauth: 'true', username: 'u', password: 'p' },
    });
  });

  it('refuses text that is not a login module line', () => {
    expect(parseJaasConfig('username="u" password="p"')).toHaveProperty('error');
    expect(parseJaasConfig('a.B required username="u" stray')).toHaveProperty('error');
  });
});
