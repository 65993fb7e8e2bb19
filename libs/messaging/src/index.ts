/**
 * @acm/messaging — the MessageBus port (keyed records, consumer groups, per-key order) with a Kafka
 * adapter for production and an in-memory twin for tests. Knows nothing of participant messages.
 */
export * from './message-bus';
export * from './redelivery';
export * from './in-memory/in-memory-message-bus';
export * from './kafka/kafka-message-bus';
export * from './kafka/kafka-security';
export * from './kafka/round-trip';
export * from './tracing/tracing-config';
export * from './tracing/start-tracing';
export * from './tracing/trace-headers';
export * from './record-signature';
