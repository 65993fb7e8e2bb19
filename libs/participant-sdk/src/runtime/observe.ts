/**
 * Observation: the handler's `observe` run over deployed elements, on the runtime's STATUS_REQ and on the
 * participant's own schedule, reported as STATUS element info with the `observation` extension.
 */
import type { AutomationCompositionElementInfo, AutomationCompositionInfo } from '@acm/contracts';
import { describeError } from '@acm/messaging';
import { observeIntervalOf } from '@acm/domain';

import type { CachedInstance } from '../cache';
import type { ElementObservation, InstanceElement, ParticipantTimers } from '../types';
import type { ParticipantCore } from './core';
import { statusMessage } from './outbound';
import { applyInfo } from './pushes';

/** One deployed element the participant observes, with what its handler needs. */
interface ObserveTarget {
  readonly instance: CachedInstance;
  readonly element: InstanceElement;
}

/** The elements `observe` looks at: this participant's DEPLOYED ones (an element in an order is the order's). */
export function observableElements(core: ParticipantCore): ObserveTarget[] {
  const targets: ObserveTarget[] = [];
  for (const instance of core.cache.instances.values()) {
    for (const element of instance.elements.values()) {
      if (element.deployState === 'DEPLOYED') {
        targets.push({ instance, element });
      }
    }
  }
  return targets;
}

async function observeOne(core: ParticipantCore, target: ObserveTarget): Promise<ElementObservation | null> {
  const handler = core.handler;
  if (handler.observe === undefined) {
    return null;
  }
  const { instance, element } = target;
  const compositionId = instance.compositionId ?? '';
  try {
    return await handler.observe({
      instanceId: instance.instanceId,
      compositionId,
      compositionElement: core.compositionElementFor(compositionId, element.definition, undefined),
      instanceElement: element,
    });
  } catch (error) {
    // A handler that cannot look is no proof the element is gone: it is reported present and unhealthy.
    return { present: true, healthy: false, reason: `observe failed: ${describeError(error)}` };
  }
}

function elementInfo(element: InstanceElement, observation: ElementObservation): AutomationCompositionElementInfo {
  return {
    automationCompositionElementId: element.id,
    deployState: element.deployState,
    lockState: element.lockState,
    ...(element.operationalState === undefined ? {} : { operationalState: element.operationalState }),
    ...(element.useState === undefined ? {} : { useState: element.useState }),
    outProperties: element.outProperties,
    observation: {
      present: observation.present,
      healthy: observation.healthy,
      ...(observation.reason === undefined ? {} : { reason: observation.reason }),
      ...(observation.properties === undefined ? {} : { properties: observation.properties }),
    },
  };
}

/**
 * Runs `observe` for each target and sends the findings, one STATUS per instance (so the runtime keeps one instance's
 * reports in order). Resolves once they are queued; answers how many elements were reported.
 */
export async function observeAndReport(core: ParticipantCore, targets: readonly ObserveTarget[]): Promise<number> {
  const byInstance = new Map<string, { instance: CachedInstance; elements: AutomationCompositionElementInfo[] }>();
  for (const target of targets) {
    const observation = await observeOne(core, target);
    if (observation === null) {
      continue;
    }
    applyInfo(target.element, observation);
    const entry = byInstance.get(target.instance.instanceId) ?? { instance: target.instance, elements: [] };
    entry.elements.push(elementInfo(target.element, observation));
    byInstance.set(target.instance.instanceId, entry);
  }
  let reported = 0;
  for (const { instance, elements } of byInstance.values()) {
    const status = statusMessage(core);
    if (instance.compositionId !== undefined) {
      status.compositionId = instance.compositionId;
    }
    const info: AutomationCompositionInfo = {
      automationCompositionId: instance.instanceId,
      ...core.cache.instanceStates(instance),
      elements,
    };
    status.automationCompositionInfoList = [info];
    await core.publish(status);
    reported += elements.length;
  }
  return reported;
}

/** How far below its interval a scheduled observation may come (the jitter), so elements deployed together spread. */
export const OBSERVE_JITTER = 0.2;

/** The default period of the schedule's check for due elements. */
export const DEFAULT_OBSERVE_TICK_MS = 1000;

/**
 * The participant's own observe schedule: each deployed element is observed every `observe_interval` seconds of its
 * node template (default and floor in the domain's observation rules), less a random jitter of up to
 * {@link OBSERVE_JITTER} of it, so the time between two observations never exceeds the interval.
 */
export class ObserveSchedule {
  private readonly dueAt = new Map<string, number>();
  private handle: unknown;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly core: ParticipantCore,
    private readonly timers: ParticipantTimers,
    private readonly random: () => number,
    private readonly tickMs: number,
  ) {}

  start(): void {
    if (this.core.handler.observe === undefined) {
      return;
    }
    this.handle = this.timers.setInterval(() => {
      void this.tick();
    }, this.tickMs);
  }

  stop(): void {
    this.timers.clearInterval(this.handle);
  }

  /** Observes the elements whose time has come; one tick at a time (a slow handler delays, never doubles, the next). */
  async tick(): Promise<number> {
    if (this.running !== null || this.core.status !== 'started') {
      return 0;
    }
    const now = this.core.clock().getTime();
    const targets = observableElements(this.core);
    const seen = new Set<string>();
    const due: typeof targets = [];
    for (const target of targets) {
      const key = `${target.instance.instanceId}/${target.element.id}`;
      seen.add(key);
      const at = this.dueAt.get(key);
      if (at === undefined || at <= now) {
        due.push(target);
        this.dueAt.set(key, now + this.intervalMs(target));
      }
    }
    for (const key of this.dueAt.keys()) {
      if (!seen.has(key)) {
        this.dueAt.delete(key);
      }
    }
    if (due.length === 0) {
      return 0;
    }
    const running = observeAndReport(this.core, due);
    this.running = running;
    try {
      return await running;
    } catch (error) {
      this.core.logger('warn', 'Scheduled observation failed', { error: describeError(error) });
      return 0;
    } finally {
      this.running = null;
    }
  }

  private intervalMs(target: ObserveTarget): number {
    const compositionId = target.instance.compositionId ?? '';
    const metadata = this.core.cache.compositionElement(compositionId, target.element.definition)?.metadata;
    const intervalMs = observeIntervalOf(metadata) * 1000;
    return Math.round(intervalMs * (1 - OBSERVE_JITTER * this.random()));
  }
}
