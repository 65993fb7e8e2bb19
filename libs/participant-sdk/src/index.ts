/**
 * @acm/participant-sdk — write an ACM participant in TypeScript: declare the element types you support,
 * implement an {@link ElementHandler}, and a {@link Participant} speaks ONAP's participant protocol for you
 * on any `@acm/messaging` MessageBus (Kafka in production, in-memory in tests). Framework-free.
 * Test doubles (`ScriptedRuntime`, `ManualTimers`, order builders) and the worked examples are in
 * `@acm/participant-sdk/testing`, which production code never imports; the resource-provider kit
 * (`ResourceProviderHandler`, `ResourceClient`, retries) in `@acm/participant-sdk/provider`.
 */
export { Participant } from './participant';
export type { ParticipantOptions } from './participant';
export * from './types';
export { DEFAULT_OUTBOUND_CAPACITY, nodeRetryTimers } from './outbound-queue';
export type { OutboundStats, RetryTimers } from './outbound-queue';
export { DEFAULT_REPLAY_WINDOW_MS } from './replay-window';
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_IDEMPOTENCE_CAPACITY,
  DEFAULT_INTERMEDIARY_VERSION,
  consoleParticipantLogger,
  defaultGroupId,
  nodeTimers,
} from './defaults';
export { definitionKey, nextStageOf, previousStageOf, stagesOf, startPhaseOf } from './cache';
export { envInteger, envText, readParticipantEnvironment } from './process/environment';
export type { Environment, ParticipantEnvironment } from './process/environment';
export { participantKafkaBus } from './process/kafka-bus';
export { stopOnSignals } from './process/stop-on-signals';
export type { SignalledProcess, StopOnSignalsOptions } from './process/stop-on-signals';
