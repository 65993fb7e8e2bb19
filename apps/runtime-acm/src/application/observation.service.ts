import type { ParticipantStatus } from '@acm/contracts';
import type { ElementObservationRow, OperationEvent } from '@acm/domain';
import {
  Clock,
  ObservationStore,
  UnitOfWork,
  decideObservation,
  needsHealing,
  observationSettingsOf,
  worstHealth,
} from '@acm/domain';
import type { HealthState } from '@acm/domain';
import { Injectable, Logger, Optional } from '@nestjs/common';
import { EngineMetrics } from '../engine/engine-metrics';
import { HealingService } from './healing.service';

/** What a STATUS says a participant observed of one instance's elements. */
interface InstanceObservations {
  readonly instanceId: string;
  readonly participantId: string;
  readonly replicaId: string;
  readonly elements: ReadonlyArray<{
    readonly elementId: string;
    readonly observation: NonNullable<
      NonNullable<
        NonNullable<ParticipantStatus['automationCompositionInfoList']>[number]['elements']
      >[number]['observation']
    >;
  }>;
}

/** True when a STATUS carries at least one observation. */
export function carriesObservation(message: ParticipantStatus): boolean {
  return (message.automationCompositionInfoList ?? []).some((info) =>
    (info.elements ?? []).some((element) => element.observation !== undefined),
  );
}

/** The reason an observation is ignored and counted (`acm_participant_messages_ignored_total`). */
export const OBSERVATION_NOT_OWNED = 'OBSERVATION_NOT_OWNED';

/** One observed element in GET: its health, why, since when (ISO 8601), and its drifted properties (JSON pointers). */
export interface ElementHealthView {
  health: HealthState;
  reason: string | null;
  since: string;
  drift: string[];
}

/** An instance's observed health: the worst of its elements' and each observed element's. */
export interface InstanceHealthView {
  health: HealthState;
  elements: Record<string, ElementHealthView>;
}

/**
 * The observations participants report in STATUS element info (the `observation` extension): compared first with
 * what is stored, written only when the health or the drift changed, with HEALTH_CHANGED and DRIFTED in the history.
 * An observation of an element the participant does not own is ignored and counted, as ACKs are.
 */
@Injectable()
export class ObservationService {
  private readonly logger = new Logger('Observations');
  private readonly healthListeners: Array<(instanceIds: readonly string[]) => void> = [];

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly observations: ObservationStore,
    private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
    /** Absent: observations are recorded, nothing is healed. */
    @Optional() private readonly healing?: HealingService,
  ) {}

  /** Calls `listener` with the instances whose elements' health this process recorded a change of. */
  onHealthChanged(listener: (instanceIds: readonly string[]) => void): void {
    this.healthListeners.push(listener);
  }

  /**
   * Records the observations of committed STATUS reports, in their order. A failure is logged and counted, never
   * thrown: the reports' own data is committed, and the participant's next observation tries again.
   */
  async record(reports: readonly ParticipantStatus[]): Promise<void> {
    for (const report of reports.filter(carriesObservation)) {
      for (const observed of this.byInstance(report)) {
        try {
          await this.recordInstance(observed);
        } catch (error) {
          this.metrics.messagesIgnored.inc({ reason: 'OBSERVATION_FAILED' });
          this.logger.warn(
            `Could not record the observations of instance ${observed.instanceId}: ${(error as Error).message}`,
          );
        }
      }
    }
  }

  /**
   * An instance's observed health for GET: the worst state of its elements (Unknown for one never observed) and each
   * observed element's; null when no element of it was ever observed (ONAP's participants: nothing to show).
   */
  async ofInstance(instanceId: string, elementIds: readonly string[]): Promise<InstanceHealthView | null> {
    const elements = await this.observations.ofInstance(instanceId);
    if (Object.keys(elements).length === 0) {
      return null;
    }
    const states = elementIds.map((id) => elements[id]?.health.state ?? 'Unknown');
    return {
      health: worstHealth(states),
      elements: Object.fromEntries(
        Object.entries(elements).map(([id, observed]) => [
          id,
          {
            health: observed.health.state,
            reason: observed.health.reason,
            since: new Date(observed.health.since).toISOString(),
            drift: [...observed.drift],
          },
        ]),
      ),
    };
  }

  private byInstance(report: ParticipantStatus): InstanceObservations[] {
    return (report.automationCompositionInfoList ?? []).flatMap((info) => {
      const elements = (info.elements ?? []).flatMap((element) =>
        element.observation === undefined
          ? []
          : [{ elementId: element.automationCompositionElementId.toLowerCase(), observation: element.observation }],
      );
      return elements.length === 0
        ? []
        : [
            {
              instanceId: info.automationCompositionId.toLowerCase(),
              participantId: report.participantId,
              replicaId: report.replicaId,
              elements,
            },
          ];
    });
  }

  private async recordInstance(observed: InstanceObservations): Promise<void> {
    const found = await this.unitOfWork.read(async (store) => {
      const instance = await store.instances.find(observed.instanceId);
      const definition = instance === null ? null : await store.definitions.find(instance.value.compositionId);
      return instance === null || definition === null
        ? null
        : { instance: instance.value, definition: definition.value };
    });
    if (found === null) {
      this.metrics.messagesIgnored.inc({ reason: OBSERVATION_NOT_OWNED }, observed.elements.length);
      return;
    }
    const { instance, definition } = found;
    const owned = observed.elements.filter(({ elementId }) => {
      const element = instance.elements[elementId];
      const mine = element !== undefined && element.participantId === observed.participantId;
      if (!mine) {
        this.metrics.messagesIgnored.inc({ reason: OBSERVATION_NOT_OWNED });
      }
      return mine;
    });
    if (owned.length === 0) {
      return;
    }
    const previous = await this.observations.findMany(owned.map(({ elementId }) => elementId));
    const now = this.clock.now();
    const rows: ElementObservationRow[] = [];
    const events: OperationEvent[] = [];
    let healing = false;
    for (const { elementId, observation } of owned) {
      const element = instance.elements[elementId];
      if (element === undefined) {
        continue;
      }
      const settings = observationSettingsOf(definition.serviceTemplate, element.definition.name, instance.metadata);
      const decision = decideObservation(
        elementId,
        previous.get(elementId) ?? null,
        {
          present: observation.present,
          healthy: observation.healthy,
          ...(observation.reason === undefined ? {} : { reason: observation.reason }),
          ...(observation.properties === undefined ? {} : { properties: observation.properties }),
        },
        element.properties,
        settings,
        now,
      );
      const known = decision.next ?? previous.get(elementId);
      healing ||= known !== undefined && needsHealing({ mode: settings.driftMode, observed: known });
      if (decision.next === null) {
        continue;
      }
      // The same element twice in one report: the later observation starts from the earlier one's result.
      previous.set(elementId, decision.next);
      rows.push({ instanceId: instance.instanceId, elementId, observed: decision.next });
      for (const change of decision.changes) {
        events.push({
          ...change,
          subjectId: instance.instanceId,
          operationId: null,
          actor: { kind: 'participant', participantId: observed.participantId, replicaId: observed.replicaId },
          at: now,
        });
      }
    }
    await this.observations.record(rows, events);
    if (events.some((event) => event.event === 'HEALTH_CHANGED')) {
      this.healthListeners.forEach((listener) => listener([instance.instanceId]));
    }
    if (healing && this.healing !== undefined) {
      await this.healing.consider(instance.instanceId);
    }
  }
}
