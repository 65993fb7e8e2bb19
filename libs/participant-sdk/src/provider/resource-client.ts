/**
 * The small client a resource provider implements for the external service it manages. The
 * {@link ResourceProviderHandler} turns lifecycle orders into calls of it, following the provider rules
 * of `decideDeploy` / `decideUndeploy`.
 */

/** What the external service says about a resource name. */
export const RESOURCE_STATES = ['missing', 'deleted', 'suspended', 'running', 'creating', 'pending', 'failed'] as const;
/** @publicApi */
export type ResourceState = (typeof RESOURCE_STATES)[number];

/**
 * A resource as the service reports it. Only `state` is required; the other fields make refusals
 * diagnosable (they are printed as `instance_uid`, `status_raw`, `operation_pending`, `operation_in_progress`).
 *
 * @publicApi Returned by {@link ResourceClient.getState}.
 */
export interface ObservedResource {
  state: ResourceState;
  /** The service's own id of the resource. */
  instanceUid?: string | null;
  /** The service's state text, before it was mapped to `state`. */
  statusRaw?: string | null;
  /** An operation the service has queued on the resource. */
  operationPending?: string | null;
  /** An operation the service is running on the resource. */
  operationInProgress?: string | null;
  /** The resource's values of the provider's key properties (compared before a suspended resource is adopted). */
  keyProperties?: Record<string, unknown>;
}

/** @publicApi What `create` may tell about the new resource. */
export interface CreatedResource {
  instanceUid?: string;
}

/**
 * The external service, by resource name. Errors with a numeric `status` (an HTTP status code) are
 * classified by `isTransientError`: 429, 502, 503 and 504, and 401 on `getState`, are retried.
 *
 * @publicApi The one interface a resource provider implements.
 */
export interface ResourceClient {
  getState(name: string): Promise<ObservedResource>;
  create(name: string, spec: Record<string, unknown>): Promise<CreatedResource | void>;
  update(name: string, spec: Record<string, unknown>): Promise<void>;
  resume(name: string): Promise<void>;
  suspend(name: string): Promise<void>;
  /** Not used by the lifecycle rules (undeploy suspends or forgets); there for tools and clean-up. */
  delete(name: string): Promise<void>;
}

/**
 * An error of the external service, with its HTTP status when it has one.
 *
 * @publicApi Throw it (or any error with a numeric `status`) from a {@link ResourceClient}.
 */
export class ResourceClientError extends Error {
  override readonly name = 'ResourceClientError';

  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The HTTP status an error carries, if any. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Whether a call is worth repeating: throttling and gateway errors always, and 401 on a read, where an
 * expired token is refreshed by the next call; a 401 on a write might have been applied, so it is not.
 */
export function isTransientError(error: unknown, call: 'read' | 'write'): boolean {
  const status = statusOf(error);
  return status !== undefined && (TRANSIENT_STATUSES.has(status) || (status === 401 && call === 'read'));
}
