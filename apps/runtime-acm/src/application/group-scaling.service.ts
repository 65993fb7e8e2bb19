import type { AuditCursor, AutomationComposition, ScalingDecision, StoredEvent } from '@acm/domain';
import { AuditLedger, Clock, DomainError, ReadModels, groupMembers, isDomainError, scalingDecision } from '@acm/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { TemplateReader } from '../engine/template-reader';
import { currentRequestContext, withRequestContext } from '../observability/request-context';
import { signalKeyOf, signalToken, verifySignalToken } from '../security/signal-token';
import { InstantiationService } from './instantiation.service';
import { definitionNotFound, instanceNotFound } from './not-found';

/** The group a scaling URL addresses, as the path names it. */
export interface GroupTarget {
  readonly compositionId: string;
  readonly instanceId: string;
  /** The group's node template name. */
  readonly group: string;
}

/** A signed scaling URL and the token in it. */
export interface ScaleUrl {
  readonly url: string;
  readonly token: string;
  readonly expiresAt: string;
}

/** What a scaling call did. */
export interface ScaleAnswer {
  readonly group: string;
  /** SCALED: an UPDATE of the instance started; UNCHANGED: the count is already at its bound. */
  readonly effect: 'SCALED' | 'UNCHANGED';
  readonly from: number;
  readonly to: number;
}

/** How the history names a scaling call's caller: the actor's user of the UPDATE it starts. */
export const SCALE_CALLER_PREFIX = 'scale-url';

/** Events read per page while looking for the last scaling call within the cooldown. */
const COOLDOWN_PAGE = 200;

/**
 * The scaling webhook of a group (Heat's ScalingPolicy `alarm_url`): a signed URL per group, and a call of it that
 * changes the group's count by the group's policy, as an UPDATE of the instance through the same path as a REST
 * UPDATE. The token binds the composition, the instance and the group (`group:<name>` in the signal token's
 * element slot, so a wait condition's token never scales and the reverse).
 */
@Injectable()
export class GroupScalingService {
  private readonly key: Buffer;

  constructor(
    private readonly reads: ReadModels,
    private readonly templates: TemplateReader,
    private readonly instantiation: InstantiationService,
    private readonly clock: Clock,
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    private readonly audit: AuditLedger,
  ) {
    this.key = signalKeyOf(config);
  }

  /** A signed URL that scales the group without credentials, valid for `lifetimeSeconds`. */
  async scaleUrl(target: GroupTarget, lifetimeSeconds: number, baseUrl: string): Promise<ScaleUrl> {
    await this.reads.read(async (model) => {
      const instance = await this.instanceOf(await model.instances.find(target.instanceId), target);
      const definition = await model.definitions.find(instance.compositionId);
      this.policyOf(definition?.value, instance, target.group);
    });
    const expiresAt = Math.floor(this.clock.now() / 1000) + lifetimeSeconds;
    const token = signalToken(this.key, { ...grantOf(target), expiresAt });
    const path =
      `/onap/policy/clamp/acm/v2/compositions/${target.compositionId}/instances/${target.instanceId}` +
      `/groups/${encodeURIComponent(target.group)}/scale`;
    return { url: `${baseUrl}${path}?token=${token}`, token, expiresAt: new Date(expiresAt * 1000).toISOString() };
  }

  /**
   * A call of the scaling URL: the token first (401 malformed, 403 forged or expired), then the policy's decision
   * (409 during the cooldown, with the seconds left), then the UPDATE, refused with 409 and the reason while another
   * operation runs on the instance. The UPDATE's history names the caller: `scale-url <group> from <address>`.
   */
  async scale(target: GroupTarget, token: unknown, caller: string): Promise<ScaleAnswer> {
    verifySignalToken(this.key, token, grantOf(target), this.clock.now());
    const { instance, rules, scaling } = await this.reads.read(async (model) => {
      const found = await this.instanceOf(await model.instances.find(target.instanceId), target);
      const definition = await model.definitions.find(found.compositionId);
      return { instance: found, ...this.policyOf(definition?.value, found, target.group) };
    });
    const now = this.clock.now();
    const last = await this.lastScaleWithin(instance.instanceId, target.group, now - scaling.cooldownSeconds * 1000);
    const current = groupMembers(instance.elements, target.group).length;
    return this.apply(target, instance, scalingDecision(rules, scaling, current, last, now), caller);
  }

  /**
   * When the group was last scaled by a call since `from` (null: not since then): the ledger is read from the start
   * of the cooldown only, so however long the instance's history, the check reads a bounded window.
   */
  private async lastScaleWithin(instanceId: string, group: string, from: number): Promise<number | null> {
    const filter = { instanceId, orders: ['UPDATE' as const], from };
    let last: number | null = null;
    let after: AuditCursor | null = null;
    for (;;) {
      const page = await this.audit.events(filter, after, 0, COOLDOWN_PAGE);
      last = lastScaleOf(page, group) ?? last;
      const end = page.at(-1);
      if (page.length < COOLDOWN_PAGE || end === undefined) {
        return last;
      }
      after = { at: end.at, sequence: end.sequence };
    }
  }

  private async apply(
    target: GroupTarget,
    instance: AutomationComposition,
    decision: ScalingDecision,
    caller: string,
  ): Promise<ScaleAnswer> {
    if (decision.kind === 'COOLDOWN') {
      throw new DomainError(
        'SCALING_REFUSED',
        `group ${target.group}: a scaling call is refused during the cooldown, ${decision.secondsLeft} s left`,
        { group: target.group, secondsLeft: decision.secondsLeft },
      );
    }
    if (decision.kind === 'UNCHANGED') {
      return { group: target.group, effect: 'UNCHANGED', from: decision.count, to: decision.count };
    }
    const [first] = groupMembers(instance.elements, target.group);
    if (first === undefined) {
      throw new DomainError('NOT_FOUND', `group ${target.group} has no member in instance ${instance.instanceId}`);
    }
    const context = currentRequestContext() ?? {};
    const user = `${SCALE_CALLER_PREFIX} ${target.group} from ${caller}`;
    await this.refusedWhileBusy(target, () =>
      withRequestContext({ ...context, requestId: context.requestId ?? user, user }, () =>
        this.instantiation.update(instance.compositionId, {
          instanceId: instance.instanceId,
          compositionId: instance.compositionId,
          name: instance.name,
          version: instance.version,
          description: instance.description,
          derivedFrom: instance.derivedFrom,
          metadata: instance.metadata,
          elements: [
            {
              id: first.id,
              definition: first.definition,
              description: first.description,
              properties: {},
              count: decision.to,
            },
          ],
        }),
      ),
    );
    return { group: target.group, effect: 'SCALED', from: decision.from, to: decision.to };
  }

  /** The UPDATE refused by the instance's state (another operation runs) is a 409 of the scaling call, with why. */
  private async refusedWhileBusy(target: GroupTarget, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (isDomainError(error) && error.code === 'ORDER_NOT_ALLOWED') {
        throw new DomainError(
          'SCALING_REFUSED',
          `group ${target.group}: the instance cannot scale now: ${error.message}`,
          {
            ...error.details,
            group: target.group,
          },
        );
      }
      throw error;
    }
  }

  private async instanceOf(
    found: { value: AutomationComposition } | null,
    target: GroupTarget,
  ): Promise<AutomationComposition> {
    if (found === null) {
      throw instanceNotFound(target.instanceId);
    }
    if (found.value.compositionId !== target.compositionId) {
      throw new DomainError('ID_MISMATCH', `${found.value.compositionId} do not match with ${target.compositionId}`, {
        instanceId: target.instanceId,
      });
    }
    return Promise.resolve(found.value);
  }

  private policyOf(
    definition: Parameters<TemplateReader['readDefinition']>[0] | undefined,
    instance: AutomationComposition,
    group: string,
  ) {
    if (definition === undefined) {
      throw definitionNotFound(instance.compositionId);
    }
    const template = this.templates.readDefinition(definition).elements.find((element) => element.name === group);
    const rules = template?.group;
    if (rules?.scaling === undefined) {
      throw new DomainError(
        'NOT_FOUND',
        `group ${group}: no node template of composition ${instance.compositionId} with count and a scaling policy (metadata scaling_adjustment)`,
        { problems: [{ field: 'group', rule: 'must name a node template with count and scaling_adjustment' }] },
      );
    }
    return { rules, scaling: rules.scaling };
  }
}

function grantOf(target: GroupTarget) {
  return { compositionId: target.compositionId, instanceId: target.instanceId, elementId: `group:${target.group}` };
}

/** When the group was last scaled by a call: the latest UPDATE ordered by its scaling URL. */
function lastScaleOf(history: readonly StoredEvent[], group: string): number | null {
  const user = `${SCALE_CALLER_PREFIX} ${group} from `;
  let last: number | null = null;
  for (const event of history) {
    if (event.event === 'ORDERED' && event.actor.kind === 'request' && event.actor.user?.startsWith(user) === true) {
      last = event.at;
    }
  }
  return last;
}
