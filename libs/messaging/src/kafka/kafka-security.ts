/**
 * Kafka TLS and SASL settings from environment variables, shared by the runtime and the participant
 * processes. The names ONAP's runtime reads are kept (`KAFKA_SECURITY_PROTOCOL`, `KAFKA_SASL_MECHANISM`,
 * `KAFKA_SASL_JAAS_CONFIG`); ONAP configures TLS through Java key stores, which Node cannot read, so the
 * certificate settings are PEM files under names of our own. Every problem is collected, so a start-up
 * refuses with one message that lists them all.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

import type { SASLOptions } from 'kafkajs';

export const KAFKA_SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type KafkaSecurityProtocol = (typeof KAFKA_SECURITY_PROTOCOLS)[number];

export const KAFKA_SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/** Every variable `readKafkaSecurity` reads (for the checks of the deployment files). */
export const KAFKA_SECURITY_VARIABLES = [
  'KAFKA_SECURITY_PROTOCOL',
  'KAFKA_SASL_MECHANISM',
  'KAFKA_SASL_JAAS_CONFIG',
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
  'KAFKA_SSL_CA_FILE',
  'KAFKA_SSL_CERT_FILE',
  'KAFKA_SSL_KEY_FILE',
  'KAFKA_SSL_KEY_PASSWORD',
] as const;

/** What `KafkaMessageBus` takes: `ssl` absent means plain TCP, `sasl` absent means no authentication. */
export interface KafkaSecurity {
  readonly protocol: KafkaSecurityProtocol;
  readonly ssl?: ConnectionOptions;
  readonly sasl?: SASLOptions;
}

type Env = Readonly<Record<string, string | undefined>>;

const KAFKAJS_MECHANISM = {
  PLAIN: 'plain',
  'SCRAM-SHA-256': 'scram-sha-256',
  'SCRAM-SHA-512': 'scram-sha-512',
} as const;

/** The JAAS login module each mechanism is configured with in a Java client's `sasl.jaas.config`. */
const LOGIN_MODULE: Record<KafkaSaslMechanism, string> = {
  PLAIN: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  'SCRAM-SHA-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  'SCRAM-SHA-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
};

function value(env: Env, name: (typeof KAFKA_SECURITY_VARIABLES)[number]): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/**
 * Reads `<module> required username="..." password="...";`, the form ONAP's charts and Strimzi's
 * generated secrets use. Options other than the two are ignored.
 */
export function parseJaasConfig(
  text: string,
): { loginModule: string; options: Record<string, string> } | { error: string } {
  const match = /^\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\b([\s\S]*?);?\s*$/.exec(text);
  if (!match) {
    return { error: 'must read `<LoginModule> required username="..." password="...";`' };
  }
  const options: Record<string, string> = {};
  const rest = match[3] ?? '';
  const option = /([\w.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))/g;
  let consumed = rest;
  for (let found = option.exec(rest); found !== null; found = option.exec(rest)) {
    options[found[1]!] = found[2] !== undefined ? found[2].replace(/\\(.)/g, '$1') : found[3]!;
    consumed = consumed.replace(found[0], '');
  }
  if (consumed.replace(/;/g, '').trim() !== '') {
    return { error: 'has text that is not a `name="value"` option' };
  }
  return { loginModule: match[1]!, options };
}

function readPem(
  env: Env,
  name: 'KAFKA_SSL_CA_FILE' | 'KAFKA_SSL_CERT_FILE' | 'KAFKA_SSL_KEY_FILE',
  problems: string[],
  readFile: (path: string) => string,
): string | undefined {
  const path = value(env, name);
  if (path === undefined) {
    return undefined;
  }
  let content: string;
  try {
    content = readFile(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    problems.push(`${name}: cannot read "${path}" (${typeof code === 'string' ? code : String(error)})`);
    return undefined;
  }
  if (!content.includes('-----BEGIN ')) {
    problems.push(`${name}: "${path}" is not a PEM file (no -----BEGIN line)`);
    return undefined;
  }
  return content;
}

/**
 * The TLS and SASL settings of `env`, or the list of what is wrong with them. `readFile` reads the PEM
 * files (injected for tests). With `KAFKA_SECURITY_PROTOCOL` unset or PLAINTEXT nothing is read, but
 * certificate or credential settings that would then be ignored are reported: a secured deployment that
 * silently connects in clear is worse than one that refuses to start.
 */
export function readKafkaSecurity(
  env: Env,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { security: KafkaSecurity; problems: string[] } {
  const problems: string[] = [];
  const protocolText = (value(env, 'KAFKA_SECURITY_PROTOCOL') ?? 'PLAINTEXT').toUpperCase();
  const protocol = (KAFKA_SECURITY_PROTOCOLS as readonly string[]).includes(protocolText)
    ? (protocolText as KafkaSecurityProtocol)
    : undefined;
  if (protocol === undefined) {
    problems.push(
      `KAFKA_SECURITY_PROTOCOL: must be one of ${KAFKA_SECURITY_PROTOCOLS.join(', ')}, got "${protocolText}"`,
    );
  }
  const usesSsl = protocol === 'SSL' || protocol === 'SASL_SSL';
  const usesSasl = protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL';

  let ssl: ConnectionOptions | undefined;
  if (usesSsl) {
    const ca = readPem(env, 'KAFKA_SSL_CA_FILE', problems, readFile);
    const cert = readPem(env, 'KAFKA_SSL_CERT_FILE', problems, readFile);
    const key = readPem(env, 'KAFKA_SSL_KEY_FILE', problems, readFile);
    const certSet = value(env, 'KAFKA_SSL_CERT_FILE') !== undefined;
    const keySet = value(env, 'KAFKA_SSL_KEY_FILE') !== undefined;
    if (certSet !== keySet) {
      problems.push('KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE: a client certificate needs both, or neither');
    }
    const passphrase = env['KAFKA_SSL_KEY_PASSWORD'];
    ssl = {
      // Without a CA file the system's CAs verify the broker; verification is never turned off.
      ...(ca === undefined ? {} : { ca }),
      ...(cert === undefined ? {} : { cert }),
      ...(key === undefined ? {} : { key }),
      ...(passphrase ? { passphrase } : {}),
    };
  } else if (protocol !== undefined) {
    for (const name of ['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'] as const) {
      if (value(env, name) !== undefined) {
        problems.push(`${name}: is set, but KAFKA_SECURITY_PROTOCOL ${protocol} does not use TLS (SSL or SASL_SSL)`);
      }
    }
  }

  let sasl: SASLOptions | undefined;
  const jaas = value(env, 'KAFKA_SASL_JAAS_CONFIG');
  const username = value(env, 'KAFKA_SASL_USERNAME');
  const password = env['KAFKA_SASL_PASSWORD'];
  if (usesSasl) {
    // ONAP's default mechanism is GSSAPI (Kerberos), which kafkajs cannot do: it must be named.
    const mechanismText = (value(env, 'KAFKA_SASL_MECHANISM') ?? '').toUpperCase();
    const mechanism = (KAFKA_SASL_MECHANISMS as readonly string[]).includes(mechanismText)
      ? (mechanismText as KafkaSaslMechanism)
      : undefined;
    if (mechanism === undefined) {
      problems.push(
        `KAFKA_SASL_MECHANISM: must be one of ${KAFKA_SASL_MECHANISMS.join(', ')} with ${protocol}, got "${mechanismText}"`,
      );
    }
    let credentials: { username: string; password: string } | undefined;
    if (jaas !== undefined && (username !== undefined || password !== undefined)) {
      problems.push('KAFKA_SASL_JAAS_CONFIG and KAFKA_SASL_USERNAME/KAFKA_SASL_PASSWORD: set one or the other');
    } else if (jaas !== undefined) {
      const parsed = parseJaasConfig(jaas);
      if ('error' in parsed) {
        problems.push(`KAFKA_SASL_JAAS_CONFIG: ${parsed.error}`);
      } else if (mechanism !== undefined && parsed.loginModule !== LOGIN_MODULE[mechanism]) {
        problems.push(
          `KAFKA_SASL_JAAS_CONFIG: ${mechanism} needs ${LOGIN_MODULE[mechanism]}, got ${parsed.loginModule}`,
        );
      } else if (parsed.options['username'] === undefined || parsed.options['password'] === undefined) {
        problems.push('KAFKA_SASL_JAAS_CONFIG: must give username="..." and password="..."');
      } else {
        credentials = { username: parsed.options['username'], password: parsed.options['password'] };
      }
    } else if (username !== undefined && password) {
      credentials = { username, password };
    } else {
      problems.push(
        `KAFKA_SASL_JAAS_CONFIG (or KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD): required with ${protocol}`,
      );
    }
    if (mechanism !== undefined && credentials !== undefined) {
      sasl = { mechanism: KAFKAJS_MECHANISM[mechanism], ...credentials };
    }
  } else if (protocol !== undefined) {
    for (const [name, set] of [
      ['KAFKA_SASL_JAAS_CONFIG', jaas !== undefined],
      ['KAFKA_SASL_USERNAME', username !== undefined],
    ] as const) {
      if (set) {
        problems.push(`${name}: is set, but KAFKA_SECURITY_PROTOCOL ${protocol} does not use SASL`);
      }
    }
  }

  return {
    security: { protocol: protocol ?? 'PLAINTEXT', ...(ssl ? { ssl } : {}), ...(sasl ? { sasl } : {}) },
    problems,
  };
}
