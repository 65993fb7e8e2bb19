import type {
  AutomationComposition,
  CompositionDefinition,
  CountSignalEffect,
  OperationSession,
  Versioned,
} from '@acm/domain';
import { Clock, DomainError, OperationSessions, ReadModels, parseSignal, supervisionMemoryOf } from '@acm/domain';
import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { signalKeyOf, signalToken, verifySignalToken } from '../security/signal-token';
import { OperationInterventions } from '../engine/operation-interventions';
import { definitionNotFound, instanceNotFound } from './not-found';

/** The control state of an instance's running operation, shown beside ONAP's fields in GET. */
export interface ControlView {
  readonly operationId: string;
  readonly order: string;
  readonly paused: boolean;
  /** Epoch ms of the pause in progress, null while running. */
  readonly pausedAt: number | null;
  readonly resent: number;
  readonly retried: number;
  readonly retryAt: number | null;
  /** Elements reported with no progress (NO_PROGRESS) since the operation last progressed, not failed. */
  readonly noProgress: readonly string[];
}

/** What a signal did, as its answer says. */
export interface SignalAnswer {
  readonly elementId: string;
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE';
  readonly effect: CountSignalEffect['effect'];
  /** The element's deploy state after the signal (DEPLOYED once the wait completed). */
  readonly deployState: string;
  readonly successes: number | null;
  readonly count: number | null;
}

/** A signed signal URL and the token in it. */
export interface SignalUrl {
  readonly url: string;
  readonly token: string;
  /** ISO 8601 time after which the URL is refused with 403. */
  readonly expiresAt: string;
}

/** The ids a signal addresses, as they arrived in the path. */
export interface SignalTarget {
  readonly compositionId: string;
  readonly instanceId: string;
  readonly elementId: string;
}

/**
 * Control of running work: cancel (with or without rollback), pause and resume an instance's operation,
 * cancel a composition's prime or deprime. Each is one transaction with the target row locked, as an order is.
 */
@Injectable()
export class ControlService {
  private readonly signalKey: Buffer;

  constructor(
    private readonly reads: ReadModels,
    private readonly control: OperationInterventions,
    private readonly clock: Clock,
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    private readonly sessions: OperationSessions,
  ) {
    this.signalKey = signalKeyOf(config);
  }

  /**
   * A signal for a wait condition. With a token (a signed URL) the token is checked first, against the ids of the
   * path, before anything is read; then the body; then, under the instance's lock, the domain decides.
   */
  async signal(target: SignalTarget, body: unknown, token: unknown): Promise<SignalAnswer> {
    if (token !== undefined) {
      verifySignalToken(this.signalKey, token, target, this.clock.now());
    }
    const { signal, problems } = parseSignal(body);
    if (signal === null) {
      throw new DomainError('VALIDATION_FAILED', problems.map((p) => `${p.field}: ${p.rule}`).join('\n'), {
        problems,
      });
    }
    return this.instanceTransaction(target.instanceId, async (session) => {
      const found = await this.lockInstance(session, target.compositionId, target.instanceId);
      const definition = await this.definitionOf((id) => session.definition(id), found.value);
      const done = await this.control.signalInstance(session, found, definition, target.elementId, signal);
      const element = done.instance.elements[target.elementId];
      const wait = element?.outProperties['waitCondition'] as { successes?: unknown; count?: unknown } | undefined;
      return {
        elementId: target.elementId,
        id: signal.id,
        status: signal.status,
        effect: done.effect,
        deployState: element?.deployState ?? 'DELETED',
        successes: typeof wait?.successes === 'number' ? wait.successes : null,
        count: typeof wait?.count === 'number' ? wait.count : null,
      };
    });
  }

  /**
   * A signed URL for signals to one wait condition, valid for `lifetimeSeconds`. The element must be a wait
   * condition of the instance, so a URL is never made for something that cannot be signalled.
   */
  async signalUrl(target: SignalTarget, lifetimeSeconds: number, baseUrl: string): Promise<SignalUrl> {
    await this.reads.read(async (model) => {
      const found = await model.instances.find(target.instanceId);
      if (!found) {
        throw instanceNotFound(target.instanceId);
      }
      this.assertOfComposition(found.value, target.compositionId);
      const element = found.value.elements[target.elementId];
      if (element === undefined) {
        throw new DomainError('NOT_FOUND', `Element ${target.elementId} not found in instance ${target.instanceId}`);
      }
      const definition = await this.definitionOf((id) => model.definitions.find(id), found.value);
      if (!this.control.isWaitCondition(definition, element.definition.name)) {
        throw new DomainError(
          'VALIDATION_FAILED',
          `elementId: must name a wait-condition element; ${target.elementId} is run by a participant`,
          { problems: [{ field: 'elementId', rule: 'must name a wait-condition element' }] },
        );
      }
    });
    const expiresAt = Math.floor(this.clock.now() / 1000) + lifetimeSeconds;
    const token = signalToken(this.signalKey, { ...target, expiresAt });
    const path =
      `/onap/policy/clamp/acm/v2/compositions/${target.compositionId}/instances/${target.instanceId}` +
      `/elements/${target.elementId}/signal`;
    return { url: `${baseUrl}${path}?token=${token}`, token, expiresAt: new Date(expiresAt * 1000).toISOString() };
  }

  async cancelInstance(compositionId: string, instanceId: string, rollback: boolean): Promise<AutomationComposition> {
    return this.instanceTransaction(instanceId, async (session) => {
      const found = await this.lockInstance(session, compositionId, instanceId);
      return this.control.cancelInstance(
        session,
        found,
        await this.definitionOf((id) => session.definition(id), found.value),
        rollback,
      );
    });
  }

  async pauseInstance(compositionId: string, instanceId: string): Promise<void> {
    await this.instanceTransaction(instanceId, async (session) => {
      const found = await this.lockInstance(session, compositionId, instanceId);
      await this.control.pauseInstance(
        session,
        found,
        await this.definitionOf((id) => session.definition(id), found.value),
      );
    });
  }

  async resumeInstance(compositionId: string, instanceId: string): Promise<void> {
    await this.instanceTransaction(instanceId, async (session) => {
      const found = await this.lockInstance(session, compositionId, instanceId);
      await this.control.resumeInstance(
        session,
        found,
        await this.definitionOf((id) => session.definition(id), found.value),
      );
    });
  }

  async cancelDefinition(compositionId: string): Promise<CompositionDefinition> {
    return this.sessions.transaction({ instanceIds: [], messageIds: [] }, async (session) => {
      const found = await session.lockDefinition(compositionId);
      if (!found) {
        throw definitionNotFound(compositionId);
      }
      return this.control.cancelDefinition(session, found);
    });
  }

  /** The running operation's control state, or null when nothing runs. */
  async controlOf(instanceId: string): Promise<ControlView | null> {
    return this.reads.read(async (model) => {
      const operation = await model.operations.findRunning(instanceId);
      if (!operation) {
        return null;
      }
      const { control } = operation;
      const instance = operation.targetKind === 'INSTANCE' ? await model.instances.find(instanceId) : null;
      const reported =
        instance && operation.targetKind === 'INSTANCE'
          ? supervisionMemoryOf(await model.events.list(instanceId, 10000), operation, instance.value.lastMsg).reported
          : new Set<string>();
      return {
        operationId: operation.operationId,
        order: operation.order,
        paused: control.pausedAt !== null,
        pausedAt: control.pausedAt,
        resent: control.resent,
        retried: control.retried,
        retryAt: control.retryAt,
        noProgress: [...reported].sort(),
      };
    });
  }

  /** One transaction on an operation session that locks and loads the instance, its operation and definitions. */
  private instanceTransaction<T>(instanceId: string, work: (session: OperationSession) => Promise<T>): Promise<T> {
    return this.sessions.transaction({ instanceIds: [instanceId], messageIds: [] }, work);
  }

  private async lockInstance(
    session: OperationSession,
    compositionId: string,
    instanceId: string,
  ): Promise<Versioned<AutomationComposition>> {
    const found = await session.lockInstance(instanceId);
    if (!found) {
      throw instanceNotFound(instanceId);
    }
    this.assertOfComposition(found.value, compositionId);
    return found;
  }

  private assertOfComposition(value: AutomationComposition, compositionId: string): void {
    if (value.compositionId !== compositionId && value.compositionTargetId !== compositionId) {
      throw new DomainError('ID_MISMATCH', `${value.compositionId} do not match with ${compositionId}`, {
        instanceId: value.instanceId,
      });
    }
  }

  private async definitionOf(
    find: (compositionId: string) => Promise<Versioned<CompositionDefinition> | null>,
    instance: AutomationComposition,
  ): Promise<CompositionDefinition> {
    const found = await find(instance.compositionId);
    if (!found) {
      throw definitionNotFound(instance.compositionId);
    }
    return found.value;
  }
}
