/**
 * One process of B5's participant fleet: many lightweight simulator participants (the SDK's Participant with the
 * simulator's instant handler) on one Kafka bus. FLEET_PARTICIPANTS is a JSON list of `{ participantId, typeName,
 * typeVersion }`; each participant has its own consumer group on the operation topic, as separate ONAP participants
 * do. Every 500 ms (and at exit) it writes FLEET_REPORT_FILE: how many handler calls it made and how many of them
 * repeated an order already handled for the same element (a duplicate the protocol should never cause).
 */
import { writeFileSync } from 'node:fs';

import { KafkaMessageBus } from '@acm/messaging';
import { createSimulator } from '@acm/simulator';
import type { Simulator } from '@acm/simulator';

import type { FleetParticipantSpec, ParticipantReport } from './b5-figures';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`${name} is required`);
  }
  return value;
}

async function main(): Promise<void> {
  const specs = JSON.parse(required('FLEET_PARTICIPANTS')) as FleetParticipantSpec[];
  const reportFile = required('FLEET_REPORT_FILE');
  const topics = { operation: required('OPERATION_TOPIC'), sync: required('SYNC_TOPIC') };
  const groupPrefix = required('FLEET_GROUP_PREFIX');
  const heartbeatMs = Number(required('HEARTBEAT_MS'));
  const bus = new KafkaMessageBus({
    brokers: required('KAFKA_BOOTSTRAP_SERVERS').split(','),
    clientId: 'acm-bench-fleet',
    logger: (level, message, context) => {
      if (level === 'error' || level === 'warn') {
        process.stderr.write(`${level} ${message} ${JSON.stringify(context ?? {})}\n`);
      }
    },
  });
  const simulators: Simulator[] = [];
  // One at a time: each start joins two consumer groups, and a burst of joins only makes the broker rebalance longer.
  for (const spec of specs) {
    simulators.push(
      await createSimulator({
        bus,
        participantId: spec.participantId,
        supportedElementTypes: [{ typeName: spec.typeName, typeVersion: spec.typeVersion }],
        topics,
        groupId: `${groupPrefix}-${spec.participantId}`,
        heartbeatMs,
        timersMs: 0,
        logger: (level, message) => {
          if (level === 'error') {
            process.stderr.write(`${message}\n`);
          }
        },
      }),
    );
  }
  const report = (): void => {
    const result: ParticipantReport = { participants: simulators.length, handlerCalls: 0, repeatedCalls: 0 };
    for (const simulator of simulators) {
      for (const entry of simulator.participant.handlerInvocationLog()) {
        result.handlerCalls += entry.invocations;
        result.repeatedCalls += entry.invocations - 1;
      }
    }
    writeFileSync(reportFile, JSON.stringify(result));
  };
  report();
  const timer = setInterval(report, 500);
  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    clearInterval(timer);
    report();
    void Promise.allSettled(simulators.map((simulator) => simulator.close()))
      .then(() => bus.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
