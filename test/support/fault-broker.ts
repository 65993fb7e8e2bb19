import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './runtime-harness';

const run = promisify(execFile);

/** Is the process alive? (signal 0 only checks) */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The user the SASL_SSL listener of a {@link FaultBroker} knows, for every mechanism. */
export const SASL_USER = { username: 'acm-test', password: 'acm-test-secret' } as const;

/**
 * A Kafka broker of a fault scenario's own, on its own ports (`port` and `port + 1` for the controller)
 * and data directory under .services, started by the same scripts/services-up.sh as the shared one
 * (it reuses the cached jars). The scenario may kill it and start it again; the shared broker
 * on 9092 is never touched.
 */
export class FaultBroker {
  readonly dir: string;

  /**
   * `saslSslPort`: also a SASL_SSL listener there (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 for
   * {@link SASL_USER}; certificates in {@link tlsDir}, made by the script at the first start).
   */
  constructor(
    name: string,
    readonly port: number,
    readonly saslSslPort?: number,
  ) {
    this.dir = join(REPO_ROOT, '.services', `fault-kafka-${name}`);
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  get secureBootstrap(): string {
    if (this.saslSslPort === undefined) {
      throw new Error('this broker has no SASL_SSL listener');
    }
    return `127.0.0.1:${this.saslSslPort}`;
  }

  /** ca.crt, client.crt and client.key (PEM) of the SASL_SSL listener. */
  get tlsDir(): string {
    return join(this.dir, 'tls');
  }

  /** Starts the broker (formatting its log dir only if it never was) and waits until it answers. */
  async start(): Promise<void> {
    await run('bash', [join(REPO_ROOT, 'scripts', 'services-up.sh'), 'kafka'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        ACM_KAFKA_PORT: String(this.port),
        ACM_KAFKA_DIR: this.dir,
        ...(this.saslSslPort === undefined
          ? {}
          : {
              ACM_KAFKA_SASL_SSL_PORT: String(this.saslSslPort),
              ACM_KAFKA_SASL_USER: SASL_USER.username,
              ACM_KAFKA_SASL_PASSWORD: SASL_USER.password,
            }),
      },
      timeout: 180_000,
    });
  }

  /** Ends the broker with `signal` (SIGKILL: no clean shutdown) and waits until it is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const pid = this.pid();
    if (pid === undefined) {
      return;
    }
    process.kill(pid, signal);
    const deadline = Date.now() + 60_000;
    while (alive(pid)) {
      if (Date.now() > deadline) {
        process.kill(pid, 'SIGKILL');
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Deletes the broker's log directory (it must be stopped), as a lost disk would: the next `start`
   * formats a new one, so the broker comes back as a new, empty cluster (a new cluster id).
   */
  wipeData(): void {
    if (this.pid() !== undefined) {
      throw new Error(`the broker on ${this.bootstrap} is running; stop it before wiping its data`);
    }
    rmSync(join(this.dir, 'data'), { recursive: true, force: true });
  }

  /** Stops the broker and removes everything it wrote. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pid(): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.dir, 'kafka.pid'), 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }
}
