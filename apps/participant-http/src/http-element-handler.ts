/**
 * The element handler of the HTTP participant, ONAP's `participant-impl-http` on the SDK: deploy merges the
 * definition's and the instance's element properties and runs every configuration entity's `restSequence`;
 * undeploy and update do nothing (ONAP) unless an entity carries the opt-in `undeployRestSequence` /
 * `updateRestSequence`; the other operations answer ONAP's success messages.
 */
import type {
  ElementContext,
  ElementHandler,
  ElementOutcome,
  ParticipantLogger,
  ParticipantTimers,
  UpdateContext,
} from '@acm/participant-sdk';

import { readConfigRequest } from './config-request';
import type { ConfigRequest } from './config-request';
import { runSequences } from './rest-sequence';
import type { SecretSources, SequenceKind } from './rest-sequence';

/** ONAP's http participant: its id, element type and consumer group. */
export const HTTP_PARTICIPANT_ID = '101c62b3-8918-41b9-a747-d21eb79c6c01';
export const HTTP_ELEMENT_TYPE = {
  typeName: 'org.onap.policy.clamp.acm.HttpAutomationCompositionElement',
  typeVersion: '1.0.0',
} as const;
export const HTTP_PARTICIPANT_GROUP = 'policy-clamp-ac-http-ppnt';

export interface HttpHandlerOptions {
  readonly logger: ParticipantLogger;
  /** Waits between retries (the SDK's timers, so tests drive them). */
  readonly timers: ParticipantTimers;
  readonly secrets: SecretSources;
  /** Milliseconds for durations and deadlines; default `performance.now`. */
  readonly now?: () => number;
}

/** ONAP merges the definition's properties first, then the instance's on top. */
export function mergedProperties(ctx: ElementContext): Record<string, unknown> {
  return { ...ctx.compositionElement.inProperties, ...ctx.instanceElement.properties };
}

/** Whether an entity of the raw properties carries `kind` (read before, and whatever, the properties' validity). */
function asksFor(properties: Record<string, unknown>, kind: 'undeployRestSequence' | 'updateRestSequence'): boolean {
  const entities = properties['configurationEntities'];
  const list: unknown[] = Array.isArray(entities)
    ? entities
    : typeof entities === 'object' && entities !== null
      ? Object.values(entities)
      : [];
  return list.some((entity) => typeof entity === 'object' && entity !== null && kind in entity);
}

export function createHttpElementHandler(options: HttpHandlerOptions): ElementHandler {
  const now = options.now ?? (() => performance.now());

  const run = async (ctx: ElementContext, request: ConfigRequest, kind: SequenceKind): Promise<ElementOutcome> => {
    const outcome = await runSequences(request, kind, {
      logger: options.logger,
      timers: options.timers,
      secrets: options.secrets,
      signal: ctx.signal,
      now,
    });
    const out = Object.keys(outcome.outProperties).length === 0 ? {} : { outProperties: outcome.outProperties };
    return outcome.ok ? { ok: true, ...out } : { ok: false, message: outcome.message ?? 'HTTP calls failed', ...out };
  };

  /** Runs an opt-in sequence when an entity has one; otherwise answers ONAP's message for the operation. */
  const optional = async (
    ctx: ElementContext,
    kind: 'undeployRestSequence' | 'updateRestSequence',
    onapMessage: string,
  ): Promise<ElementOutcome> => {
    const properties = mergedProperties(ctx);
    const reading = readConfigRequest(properties);
    if (!reading.ok) {
      // Properties ONAP would not read are no reason to stay deployed, unless they ask for calls that cannot be made.
      return asksFor(properties, kind) ? { ok: false, message: reading.message } : { ok: true, message: onapMessage };
    }
    const hasCalls = reading.request.configurationEntities.some((entity) => (entity[kind]?.length ?? 0) > 0);
    return hasCalls ? run(ctx, reading.request, kind) : { ok: true, message: onapMessage };
  };

  return {
    deploy: async (ctx) => {
      const reading = readConfigRequest(mergedProperties(ctx));
      if (!reading.ok) {
        return { ok: false, message: reading.message };
      }
      const outcome = await run(ctx, reading.request, 'restSequence');
      return outcome !== undefined && outcome !== 'pending' && outcome.ok
        ? { ...outcome, message: 'Deployed' }
        : outcome;
    },
    // ONAP's undeploy calls nothing and answers an empty message.
    undeploy: (ctx) => optional(ctx, 'undeployRestSequence', ''),
    // The calls of an update are the ones of the properties after it.
    update: (ctx: UpdateContext) =>
      optional({ ...ctx, instanceElement: ctx.instanceElementUpdated }, 'updateRestSequence', 'Update not supported'),
    lock: () => ({ ok: true }),
    unlock: () => ({ ok: true }),
    delete: () => ({ ok: true }),
    prime: () => ({ ok: true }),
    deprime: () => ({ ok: true }),
    migrate: () => ({ ok: true }),
    migratePrecheck: () => ({ ok: true }),
    rollbackMigration: () => ({ ok: true }),
    prepare: () => ({ ok: true }),
    review: () => ({ ok: true }),
  };
}
