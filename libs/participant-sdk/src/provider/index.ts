/**
 * @acm/participant-sdk/provider — the resource-provider kit: a participant whose elements are resources of an
 * external service implements a small {@link ResourceClient} and gets the lifecycle rules (create, adopt, resume,
 * suspend, diagnostics, retries) from {@link ResourceProviderHandler}. A participant that needs none of it imports
 * only `@acm/participant-sdk`.
 */
export {
  ADOPT_EXISTING_ON_CREATE,
  PROVIDER_FLAG_DEFAULTS,
  SUSPEND_ON_DESTROY,
  decideDeploy,
  decideUndeploy,
  keyPropertyDifferences,
} from './decision';
export type { DeployDecision, DeployInput, DeployRefusal, UndeployDecision } from './decision';
export { RESOURCE_STATES, ResourceClientError, isTransientError } from './resource-client';
export type { CreatedResource, ObservedResource, ResourceClient, ResourceState } from './resource-client';
export { DEFAULT_RESOURCE_RETRY_POLICY, ResourceCallFailedError, retryDelaysMs, withRetry } from './retry';
export type { ResourceRetryPolicy, RetryOptions } from './retry';
export { RESOURCE_NAME, ResourceProviderHandler } from './resource-provider-handler';
export type { ResourceProviderOptions } from './resource-provider-handler';
