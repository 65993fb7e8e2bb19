/**
 * A complete, small participant (referenced from the SDK README; compiled with the repository, so it
 * cannot rot). It supports one element type, "greets" on deploy, and shows the three ways a handler
 * can answer: a result, a thrown error, and `'pending'` followed by a later report.
 *
 * Run it against Kafka (after `npm run build`):
 *   KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092 node dist/libs/participant-sdk/src/examples/hello-participant.js
 */
import { KafkaMessageBus } from '@acm/messaging';
import type { MessageBus } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import type { ElementContext, ElementHandler, ElementOutcome } from '@acm/participant-sdk';

export const HELLO_PARTICIPANT_ID = '1a2b3c4d-0000-4000-8000-00000000beef';
export const HELLO_ELEMENT_TYPE = { typeName: 'org.example.HelloAutomationCompositionElement', typeVersion: '1.0.0' };

/** The business logic: one method per lifecycle operation. */
export const helloHandler: ElementHandler = {
  // A result returned at once becomes the element's ack (DEPLOYED / LOCKED).
  deploy(ctx: ElementContext): ElementOutcome {
    const name =
      typeof ctx.instanceElement.properties['name'] === 'string' ? ctx.instanceElement.properties['name'] : 'world';
    if (name === 'nobody') {
      // A thrown error becomes FAILED with the element back in UNDEPLOYED.
      throw new Error('Refusing to greet nobody');
    }
    return {
      ok: true,
      message: `Said hello to ${name}`,
      outProperties: { greeting: `Hello, ${name}!` },
      operationalState: 'ENABLED',
      useState: 'IDLE',
    };
  },

  // 'pending' + a later report: for work that finishes outside the handler call (polling, callbacks).
  undeploy(ctx: ElementContext): ElementOutcome {
    setTimeout(() => {
      void ctx.report.done({ message: 'Said goodbye', outProperties: {} });
    }, 10);
    return 'pending';
  },

  // Optional operations left out (lock, unlock, update, migrate, ...) answer success "Not implemented".
  delete(): ElementOutcome {
    return { ok: true };
  },
};

/** Builds the participant on any bus (Kafka in production, InMemoryMessageBus in tests). */
export function createHelloParticipant(bus: MessageBus): Participant {
  return new Participant({
    participantId: HELLO_PARTICIPANT_ID,
    supportedElementTypes: [HELLO_ELEMENT_TYPE],
    bus,
    handler: helloHandler,
  });
}

async function main(): Promise<void> {
  const brokers = (process.env['KAFKA_BOOTSTRAP_SERVERS'] ?? '127.0.0.1:9092').split(',');
  const bus = new KafkaMessageBus({ brokers, clientId: 'hello-participant' });
  const participant = createHelloParticipant(bus);
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
