/**
 * @acm/participant-sdk — write an ACM participant in TypeScript: declare the element types you support,
 * implement an {@link ElementHandler}, and a {@link Participant} speaks ONAP's participant protocol for you
 * on any `@acm/messaging` MessageBus (Kafka in production, in-memory in tests). Framework-free.
 * Test doubles (`ScriptedRuntime`, `ManualTimers`, order builders) and the worked examples are in
 * `@acm/participant-sdk/testing`, which production code never imports.
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
export {
  ADOPT_EXISTING_ON_CREATE,
  PROVIDER_FLAG_DEFAULTS,
  SUSPEND_ON_DESTROY,
  decideDeploy,
  decideUndeploy,
  keyPropertyDifferences,
} from './provider/decision';
export type { DeployDecision, DeployInput, DeployRefusal, UndeployDecision } from './provider/decision';
export { RESOURCE_STATES, ResourceClientError, isTransientError } from './provider/resource-client';
export type { CreatedResource, ObservedResource, ResourceClient, ResourceState } from './provider/resource-client';
export { DEFAULT_RESOURCE_RETRY_POLICY, ResourceCallFailedError, retryDelaysMs, withRetry } from './provider/retry';
export type { RetryOptions, ResourceRetryPolicy } from './provider/retry';
export { RESOURCE_NAME, ResourceProviderHandler } from './provider/resource-provider-handler';
export type { ResourceProviderOptions } from './provider/resource-provider-handler';
