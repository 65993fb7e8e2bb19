/**
 * A worked resource provider (referenced from the SDK README; compiled with the repository, so it cannot
 * rot): a participant whose elements are resources of an external service, here a small in-process fake
 * of one. The kit's ResourceProviderHandler applies the provider rules; this file only supplies the
 * client. Element properties: `resourceName`, the key properties `region` and `size`, and the flags
 * `adoptExistingOnCreate` / `suspendOnDestroy` (tosca/acm-provider-types.yaml).
 *
 * Run it against Kafka (after `npm run build`):
 *   KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092 node dist/libs/participant-sdk/src/examples/resource-provider-participant.js
 */
import { KafkaMessageBus } from '@acm/messaging';
import type { MessageBus } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import type { ParticipantLogger, ParticipantTimers } from '@acm/participant-sdk';
import { ResourceClientError, ResourceProviderHandler } from '@acm/participant-sdk/provider';
import type {
  CreatedResource,
  ObservedResource,
  ResourceClient,
  ResourceRetryPolicy,
} from '@acm/participant-sdk/provider';

export const PROVIDER_PARTICIPANT_ID = '1a2b3c4d-0000-4000-8000-00000000cafe';
export const FAKE_RESOURCE_ELEMENT_TYPE = { typeName: 'org.example.FakeResourceElement', typeVersion: '1.0.0' };
export const KEY_PROPERTIES = ['region', 'size'] as const;

/** A resource as the fake service keeps it. */
export interface FakeResource extends ObservedResource {
  spec: Record<string, unknown>;
}

/**
 * The external service: resources by name, with the states a real one reports. `failNext` makes the
 * next calls fail with HTTP statuses, to show the retries.
 */
export class FakeResourceService implements ResourceClient {
  readonly resources = new Map<string, FakeResource>();
  /** Every call, as `operation(name)`, in order. */
  readonly calls: string[] = [];
  private readonly faults: number[] = [];
  private created = 0;

  /** Puts a resource in place, as if someone had made it before the element was deployed. */
  seed(name: string, resource: Omit<FakeResource, 'spec'> & { spec?: Record<string, unknown> }): void {
    this.resources.set(name, { spec: {}, ...resource });
  }

  /** The next calls fail with these statuses, one each. */
  failNext(...statuses: number[]): void {
    this.faults.push(...statuses);
  }

  private enter(operation: string, name: string): void {
    this.calls.push(`${operation}(${name})`);
    const status = this.faults.shift();
    if (status !== undefined) {
      throw new ResourceClientError(`fake service answered ${status}`, status);
    }
  }

  private existing(name: string): FakeResource {
    const resource = this.resources.get(name);
    if (resource === undefined) {
      throw new ResourceClientError(`no resource named ${name}`, 404);
    }
    return resource;
  }

  getState(name: string): Promise<ObservedResource> {
    this.enter('getState', name);
    const resource = this.resources.get(name);
    return Promise.resolve(resource === undefined ? { state: 'missing' } : { ...resource });
  }

  create(name: string, spec: Record<string, unknown>): Promise<CreatedResource> {
    this.enter('create', name);
    this.created += 1;
    const instanceUid = `fake-${this.created}`;
    const keyProperties = Object.fromEntries(KEY_PROPERTIES.map((key) => [key, spec[key] ?? null]));
    this.resources.set(name, { state: 'running', statusRaw: 'ACTIVE', instanceUid, keyProperties, spec });
    return Promise.resolve({ instanceUid });
  }

  update(name: string, spec: Record<string, unknown>): Promise<void> {
    this.enter('update', name);
    this.existing(name).spec = spec;
    return Promise.resolve();
  }

  resume(name: string): Promise<void> {
    this.enter('resume', name);
    Object.assign(this.existing(name), { state: 'running', statusRaw: 'ACTIVE' });
    return Promise.resolve();
  }

  suspend(name: string): Promise<void> {
    this.enter('suspend', name);
    Object.assign(this.existing(name), { state: 'suspended', statusRaw: 'SHELVED' });
    return Promise.resolve();
  }

  delete(name: string): Promise<void> {
    this.enter('delete', name);
    Object.assign(this.existing(name), { state: 'deleted', statusRaw: 'DELETED' });
    return Promise.resolve();
  }
}

export interface ResourceProviderParticipantOptions {
  readonly bus: MessageBus;
  readonly service: ResourceClient;
  /** Timers of the retries; tests pass ManualTimers. */
  readonly retryTimers?: ParticipantTimers;
  readonly retry?: ResourceRetryPolicy;
  readonly logger?: ParticipantLogger;
}

/** The participant: one element type, handled entirely by the kit. */
export function createResourceProviderParticipant(options: ResourceProviderParticipantOptions): Participant {
  return new Participant({
    participantId: PROVIDER_PARTICIPANT_ID,
    supportedElementTypes: [FAKE_RESOURCE_ELEMENT_TYPE],
    bus: options.bus,
    ...(options.logger ? { logger: options.logger } : {}),
    handler: new ResourceProviderHandler({
      client: options.service,
      keyProperties: KEY_PROPERTIES,
      ...(options.retryTimers ? { timers: options.retryTimers } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
    }),
  });
}

async function main(): Promise<void> {
  const brokers = (process.env['KAFKA_BOOTSTRAP_SERVERS'] ?? '127.0.0.1:9092').split(',');
  const bus = new KafkaMessageBus({ brokers, clientId: 'resource-provider-participant' });
  const participant = createResourceProviderParticipant({ bus, service: new FakeResourceService() });
  await participant.start();
  const shutdown = (): void => {
    void participant
      .stop()
      .then(() => bus.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
