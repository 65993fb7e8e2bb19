import type { AutomationComposition, ParticipantReplica } from '../model';
import type { InstanceOperation } from '../ports/engine.port';
import { elementsInPhase, isElementTransitional } from '../planners/phase-planner';
import { describedAtPhaseStart } from '../planners/dependency-planner';
import { phaseDeadline } from '../planners/deadlines';
import { needsHandOver } from '../planners/hand-over';
import type { OperationEffect } from './effects';
import { phaseLookup, waitsOf } from './topology';
import type { InputOf, InstanceStep, InstanceStepContext } from './instance-types';
import { sendPhase, stepWith, unchanged } from './step-parts';

/** A lost replica: the work a participant's replicas took with them goes out again. */

/**
 * After a probe (a new replica's registration asks every replica of its participant to answer), a replica is silent
 * when it is OFF_LINE or has not been heard from since the probe left.
 */
export function silentAfterProbe(replica: ParticipantReplica, probedAt: number): boolean {
  return replica.participantState === 'OFF_LINE' || replica.lastMsg < probedAt;
}

/** Whether a participant may have lost work in this instance: one of its elements is still in transition. */
export function hasUnfinishedWorkOf(instance: AutomationComposition, participantId: string): boolean {
  return Object.values(instance.elements).some(
    (element) => element.participantId === participantId && isElementTransitional(element),
  );
}

/**
 * A participant's replicas are lost (silent, or gone with a restart): each open phase message whose taker may be
 * among them (`needsHandOver`) goes out again under its original messageId, to that participant only and
 * describing only its unfinished elements, so a replica that already took it just repeats its ACKs. The phase's
 * clock restarts, since the replica that takes the work over starts it now.
 */
export function handOver(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'REPLICA_LOST'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const { participantId, lost } = input;
  // A precheck's target lives only in its messages; it is re-ordered by the user after a TIMEOUT.
  if (!running || running.order === 'MIGRATE_PRECHECK' || !hasUnfinishedWorkOf(target, participantId)) {
    return unchanged(target);
  }
  const phase = running.phase ?? 0;
  const startPhaseOf = phaseLookup(running.order, context.templates);
  const mine = elementsInPhase(target.elements, phase, startPhaseOf).filter(
    (element) => element.participantId === participantId,
  );
  if (mine.length === 0) {
    return unchanged(target);
  }
  // The participant's share only: other participants' replicas are not concerned by this loss.
  const share: AutomationComposition = {
    ...target,
    elements: Object.fromEntries(
      Object.entries(target.elements).filter(([, element]) => element.participantId === participantId),
    ),
  };
  const ready = describedAtPhaseStart(
    share.elements,
    phase,
    startPhaseOf,
    waitsOf(running.order, target.elements, context.templates),
  );
  const effects: OperationEffect[] = [];
  for (const message of input.messages) {
    const resend =
      lost.kind === 'ALL' ||
      needsHandOver({ answeredBy: message.answeredBy, silent: lost.silent, workers: lost.workers });
    if (!resend) {
      continue;
    }
    const { covered } = message;
    const describe = new Set(
      [...ready].filter((id) => covered === null || covered.has(id) || startPhaseOf(share.elements[id]!) !== phase),
    );
    if (![...describe].some((id) => startPhaseOf(share.elements[id]!) === phase)) {
      continue;
    }
    effects.push(sendPhase(share, phase, startPhaseOf, { describe, resentMessageId: message.messageId }));
  }
  if (effects.length === 0) {
    return unchanged(target);
  }
  const moved: InstanceOperation = { ...running, deadlineAt: phaseDeadline(target, now, context.defaultTimeoutMs) };
  return stepWith(target, moved, effects);
}
