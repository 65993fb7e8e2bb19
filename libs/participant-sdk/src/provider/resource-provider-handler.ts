import { nodeTimers } from '../defaults';
import type { ElementContext, ElementHandler, ElementOutcome, ParticipantTimers, UpdateContext } from '../types';
import type { DeployDecision } from './decision';
import {
  ADOPT_EXISTING_ON_CREATE,
  PROVIDER_FLAG_DEFAULTS,
  SUSPEND_ON_DESTROY,
  decideDeploy,
  decideUndeploy,
} from './decision';
import type { ObservedResource, ResourceClient } from './resource-client';
import type { ResourceRetryPolicy } from './retry';
import { DEFAULT_RESOURCE_RETRY_POLICY, ResourceCallFailedError, withRetry } from './retry';

/** The element property that names the resource at the service, unless `resourceNameOf` says otherwise. */
export const RESOURCE_NAME = 'resourceName';

/** @publicApi Options of {@link ResourceProviderHandler}. */
export interface ResourceProviderOptions {
  readonly client: ResourceClient;
  /** Element properties that identify the resource's configuration; a suspended resource is adopted only when they are equal. */
  readonly keyProperties?: readonly string[];
  /** The resource's name at the service. Default: the element property `resourceName`. */
  readonly resourceNameOf?: (ctx: ElementContext) => string | undefined;
  /** What `create` and `update` send. Default: the element's properties without the provider flags. */
  readonly specOf?: (ctx: ElementContext) => Record<string, unknown>;
  /** Retries of transient client errors. Default: 3 retries after 2 s, 4 s and 8 s. */
  readonly retry?: ResourceRetryPolicy;
  /** The SDK's timers; tests pass ManualTimers to drive the backoff without waiting. */
  readonly timers?: ParticipantTimers;
}

/** A flag from the element's properties, then the node template's, then the TOSCA default. */
function flagOf(ctx: ElementContext, name: keyof typeof PROVIDER_FLAG_DEFAULTS): boolean | string {
  const value = ctx.instanceElement.properties[name] ?? ctx.compositionElement.inProperties[name];
  if (value === undefined || value === null) {
    return PROVIDER_FLAG_DEFAULTS[name];
  }
  if (value === true || value === 'true') {
    return true;
  }
  if (value === false || value === 'false') {
    return false;
  }
  return `${name}: must be true or false, got ${JSON.stringify(value)}`;
}

function failed(message: string): ElementOutcome {
  return { ok: false, message };
}

/**
 * An element handler for participants that manage resources of an external service, following the
 * provider rules: deploy looks the resource up by name and creates, resumes and adopts, adopts, or refuses
 * (see `decideDeploy`); undeploy suspends it or forgets it (`decideUndeploy`); update sends the new
 * spec. Refusals and failed calls answer FAILED with a multi-line diagnostic that reaches the runtime as
 * the element's message.
 *
 * @publicApi
 */
export class ResourceProviderHandler implements ElementHandler {
  private readonly retry: ResourceRetryPolicy;
  private readonly timers: ParticipantTimers;

  constructor(private readonly options: ResourceProviderOptions) {
    this.retry = options.retry ?? DEFAULT_RESOURCE_RETRY_POLICY;
    this.timers = options.timers ?? nodeTimers;
  }

  async deploy(ctx: ElementContext): Promise<ElementOutcome> {
    const name = this.nameOf(ctx);
    const adopt = flagOf(ctx, ADOPT_EXISTING_ON_CREATE);
    if (name === undefined) {
      return failed(this.missingName(ctx));
    }
    if (typeof adopt === 'string') {
      return failed(`Element ${ctx.instanceElement.id}: ${adopt}`);
    }
    return this.guarded(ctx, name, async () => {
      const observed = await this.call(ctx, `getState(${name})`, 'read', () => this.options.client.getState(name));
      const decision = decideDeploy({
        resourceName: name,
        elementId: ctx.instanceElement.id,
        observed,
        adoptExistingOnCreate: adopt,
        keyProperties: this.keyPropertiesOf(ctx),
      });
      return this.apply(ctx, name, observed, decision);
    });
  }

  async undeploy(ctx: ElementContext): Promise<ElementOutcome> {
    const name = this.nameOf(ctx);
    const suspend = flagOf(ctx, SUSPEND_ON_DESTROY);
    if (name === undefined) {
      return failed(this.missingName(ctx));
    }
    if (typeof suspend === 'string') {
      return failed(`Element ${ctx.instanceElement.id}: ${suspend}`);
    }
    if (decideUndeploy(suspend).action === 'forget') {
      return {
        ok: true,
        message: `Forgot ${name}: ${SUSPEND_ON_DESTROY} is false, so the resource is left as it is at the service`,
        outProperties: {},
      };
    }
    return this.guarded(ctx, name, async () => {
      await this.call(ctx, `suspend(${name})`, 'write', () => this.options.client.suspend(name));
      return { ok: true, message: `Suspended ${name}`, outProperties: {} };
    });
  }

  async update(ctx: UpdateContext): Promise<ElementOutcome> {
    const updated: ElementContext = { ...ctx, instanceElement: ctx.instanceElementUpdated };
    const name = this.nameOf(updated);
    if (name === undefined) {
      return failed(this.missingName(updated));
    }
    return this.guarded(ctx, name, async () => {
      await this.call(ctx, `update(${name})`, 'write', () => this.options.client.update(name, this.specOf(updated)));
      return { ok: true, message: `Updated ${name}` };
    });
  }

  private async apply(
    ctx: ElementContext,
    name: string,
    observed: ObservedResource,
    decision: DeployDecision,
  ): Promise<ElementOutcome> {
    const client = this.options.client;
    switch (decision.action) {
      case 'refuse':
        return failed(decision.diagnostic);
      case 'create': {
        const created = await this.call(ctx, `create(${name})`, 'write', () => client.create(name, this.specOf(ctx)));
        const instanceUid = created?.instanceUid ?? null;
        return {
          ok: true,
          message: `Created ${name}`,
          outProperties: { resourceName: name, instanceUid },
        };
      }
      case 'resume-and-adopt':
        await this.call(ctx, `resume(${name})`, 'write', () => client.resume(name));
        return {
          ok: true,
          message: `Resumed and adopted the suspended ${name} (${ADOPT_EXISTING_ON_CREATE} is true, key properties equal)`,
          outProperties: { resourceName: name, instanceUid: observed.instanceUid ?? null },
        };
      case 'adopt':
        return {
          ok: true,
          message: `Adopted the running ${name} (${ADOPT_EXISTING_ON_CREATE} is true)`,
          outProperties: { resourceName: name, instanceUid: observed.instanceUid ?? null },
        };
    }
  }

  /** Turns a call that failed for good into a FAILED answer naming the call, the attempts and the resource. */
  private async guarded(
    ctx: ElementContext,
    name: string,
    work: () => Promise<ElementOutcome>,
  ): Promise<ElementOutcome> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ResourceCallFailedError)) {
        throw error;
      }
      return failed(
        [
          `Element ${ctx.instanceElement.id}: ${error.message}`,
          `  resource_name: ${name}`,
          `  retries: ${this.retry.retries} (transient errors: 429, 502, 503, 504, and 401 on reads)`,
          'Ways out:',
          '  - check that the service is reachable and the participant may use it, then order the operation again',
        ].join('\n'),
      );
    }
  }

  private call<T>(ctx: ElementContext, call: string, kind: 'read' | 'write', action: () => Promise<T>): Promise<T> {
    return withRetry(call, kind, action, { policy: this.retry, timers: this.timers, signal: ctx.signal });
  }

  private nameOf(ctx: ElementContext): string | undefined {
    const name = this.options.resourceNameOf
      ? this.options.resourceNameOf(ctx)
      : ctx.instanceElement.properties[RESOURCE_NAME];
    return typeof name === 'string' && name.trim() !== '' ? name : undefined;
  }

  private missingName(ctx: ElementContext): string {
    return `Element ${ctx.instanceElement.id}: ${RESOURCE_NAME}: required, the name of the resource at the service`;
  }

  private keyPropertiesOf(ctx: ElementContext): Record<string, unknown> {
    return Object.fromEntries(
      (this.options.keyProperties ?? []).map((name) => [name, ctx.instanceElement.properties[name] ?? null]),
    );
  }

  private specOf(ctx: ElementContext): Record<string, unknown> {
    if (this.options.specOf) {
      return this.options.specOf(ctx);
    }
    return Object.fromEntries(
      Object.entries(ctx.instanceElement.properties).filter(
        ([name]) => name !== ADOPT_EXISTING_ON_CREATE && name !== SUSPEND_ON_DESTROY,
      ),
    );
  }
}
