import type { OperationEvent } from '@acm/domain';
import {
  Clock,
  HEAL_WINDOW_MS,
  ObservationStore,
  OperationSessions,
  decideHeal,
  healMaxPerHourOf,
  metadataOfTemplate,
  observationSettingsOf,
  runtimeActor,
  withDependents,
} from '@acm/domain';
import type { HealCandidate } from '@acm/domain';
import { Injectable, Logger } from '@nestjs/common';
import { OperationEngine, orderKeys } from '../engine/operation-engine';
import { TemplateReader } from '../engine/template-reader';

/**
 * Self-healing: after an observation, an instance whose elements under `drift: correct` are Missing or drifted gets a
 * HEAL (a DEPLOY of just those elements and what depends on them), when `decideHeal` says so; the rate limit's stops
 * go into the history as HEALING_STOPPED. The decision is the domain's; this reads and writes.
 */
@Injectable()
export class HealingService {
  private readonly logger = new Logger('Healing');

  constructor(
    private readonly sessions: OperationSessions,
    private readonly engine: OperationEngine,
    private readonly observations: ObservationStore,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
  ) {}

  /** Heals what the instance's observations say needs it, if it may; returns the elements a HEAL started with. */
  async consider(instanceId: string): Promise<readonly string[]> {
    const observed = await this.observations.ofInstance(instanceId);
    const now = this.clock.now();
    const past = await this.observations.healingSince(instanceId, now - HEAL_WINDOW_MS);
    const stops: OperationEvent[] = [];
    const healed = await this.sessions.transaction(orderKeys(instanceId), async (session) => {
      const found = await session.lockInstance(instanceId);
      const definition = found === null ? null : await session.definition(found.value.compositionId);
      if (found === null || definition === null) {
        return [];
      }
      const instance = found.value;
      const serviceTemplate = definition.value.serviceTemplate;
      const candidates: HealCandidate[] = Object.entries(observed).flatMap(([elementId, element]) => {
        const own = instance.elements[elementId];
        if (own === undefined) {
          return [];
        }
        const name = own.definition.name;
        return [
          {
            elementId,
            observed: element,
            mode: observationSettingsOf(serviceTemplate, name, instance.metadata).driftMode,
            maxPerHour: healMaxPerHourOf(metadataOfTemplate(serviceTemplate, name)),
            healedAt: past.flatMap((event) =>
              event.event === 'HEAL' && event.detail.elementIds.includes(elementId) ? [event.at] : [],
            ),
            stoppedAt: past.reduce<number | null>(
              (last, event) =>
                event.event === 'HEALING_STOPPED' && event.detail.elementId === elementId ? event.at : last,
              null,
            ),
          },
        ];
      });
      const decision = decideHeal(
        {
          deployState: instance.deployState,
          lockState: instance.lockState,
          subState: instance.subState,
          operationRunning: (await session.running(instanceId)) !== null,
        },
        candidates,
        now,
      );
      for (const stop of decision.stopped) {
        stops.push({
          event: 'HEALING_STOPPED',
          detail: stop,
          subjectId: instanceId,
          operationId: null,
          actor: runtimeActor('healing'),
          at: now,
        });
      }
      if (decision.heal.length === 0) {
        return [];
      }
      const info = this.templates.readDefinition(definition.value);
      const dependsOn = new Map(info.elements.map((element) => [element.name, element.dependsOn]));
      const templateOf = Object.fromEntries(
        Object.values(instance.elements).map((element) => [element.id, element.definition.name]),
      );
      const heal = withDependents(decision.heal, templateOf, (name) => dependsOn.get(name) ?? []);
      await this.engine.startInstanceOrder(session, found, definition.value, 'DEPLOY', { heal });
      return heal;
    });
    if (stops.length > 0) {
      await this.observations.record([], stops);
    }
    if (healed.length > 0) {
      this.logger.log(`Healing instance ${instanceId}: ${healed.join(', ')}`);
    }
    return healed;
  }
}
