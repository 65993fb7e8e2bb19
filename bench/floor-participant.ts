/**
 * The participant side of the transport floor (bench/floor.ts), as its own process like the simulator: reads the
 * operation topic in batches, drops what is for others with the SDK's look at the text, decodes the rest, and
 * answers each phase order at once with the records the simulator sends. No SDK, no element logic.
 * Environment: FLOOR_BROKERS, FLOOR_TOPIC, FLOOR_GROUP, FLOOR_PARTICIPANT_ID, FLOOR_READY_FILE.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { decodeMessage, isForOthers } from '@acm/contracts';
import { KafkaMessageBus } from '@acm/messaging';
import { CoalescingSender, phaseAnswers } from './lib/floor-messages';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`${name} is required`);
  }
  return value;
}

async function main(): Promise<void> {
  const topic = required('FLOOR_TOPIC');
  const participantId = required('FLOOR_PARTICIPANT_ID');
  const replicaId = randomUUID();
  const me = { participantId, replicaId };
  const bus = new KafkaMessageBus({
    brokers: required('FLOOR_BROKERS').split(','),
    clientId: 'acm-floor-participant',
    logger: (level, message) => {
      if (level === 'error' || level === 'warn') {
        process.stderr.write(`${level}: ${message}\n`);
      }
    },
  });
  const sender = new CoalescingSender(bus, topic);
  const subscription = await bus.subscribeBatch({
    topic,
    groupId: required('FLOOR_GROUP'),
    handler: (records) => {
      for (const record of records) {
        if (isForOthers(record.value, me)) {
          continue;
        }
        const decoded = decodeMessage(record.value);
        if (decoded.ok && decoded.message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY') {
          // Not awaited, as the SDK does not hold the partition while its answers are on their way.
          void sender.send(phaseAnswers(decoded.message, replicaId)).catch((error: unknown) => {
            process.stderr.write(`send failed: ${String(error)}\n`);
          });
        }
      }
      return Promise.resolve();
    },
  });
  writeFileSync(required('FLOOR_READY_FILE'), `${process.pid}\n`);
  const stop = (): void => {
    void subscription
      .close()
      .then(() => bus.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `floor participant failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
