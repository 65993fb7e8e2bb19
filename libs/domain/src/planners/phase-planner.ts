import type { InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { isInstanceTransitional } from '../instance/instance-lifecycle';
import { isForwardOrder } from '../instance/phases';
import type { DeployState, LockState, StateChangeResult } from '../states';

/** What a participant reported for one element in an ACK. */
export interface ElementReport {
  readonly elementId: string;
  readonly deployState: DeployState;
  readonly lockState: LockState;
  readonly operationalState?: string | null;
  readonly useState?: string | null;
  readonly outProperties?: Record<string, unknown> | null;
  readonly message?: string | null;
  readonly result: boolean;
}

export interface AckInput {
  /** null: the runtime itself answers for an element no participant runs (a wait condition). */
  readonly participantId: string | null;
  /** The phase of the message the ACK answers. */
  readonly phase: number;
  readonly stateChangeResult: StateChangeResult;
  readonly message: string | null;
  /**
   * A stage ACK names the element's next stage (migrate, migration rollback, prepare): the element stays in
   * transition, keeps its sub-state and records the stage. Absent on final ACKs.
   */
  readonly stage?: number;
  /** Empty means "all my elements of this instance are gone" (ONAP's answer to a DELETE it never saw). */
  readonly reports: readonly ElementReport[];
}

export type IgnoredReason = 'UNKNOWN_ELEMENT' | 'NOT_OWNER' | 'OTHER_PHASE' | 'ALREADY_APPLIED';

export interface AckApplication {
  readonly elements: Record<string, InstanceElement>;
  readonly failed: boolean;
  readonly applied: string[];
  /** Elements a migration removed for good: marked REMOVED and acknowledged DELETED (ONAP drops them). */
  readonly removed: string[];
  readonly ignored: Array<{ elementId: string; reason: IgnoredReason }>;
}

/**
 * How much of a participant's element message is kept. ONAP keeps 255 characters; a multi-line diagnostic
 * (the SDK's resource-provider refusals name the decision, ids, states and ways out) needs more, so it
 * arrives whole in GET and the history (docs/compatibility.md).
 */
export const MAX_ELEMENT_MESSAGE_LENGTH = 4096;

function truncate(message: string | null | undefined): string | null {
  return message === undefined || message === null ? null : message.slice(0, MAX_ELEMENT_MESSAGE_LENGTH);
}

/** The start phase of an element: node-template startPhase, 0 when unknown. */
export type StartPhaseOf = (element: InstanceElement) => number;

/**
 * Applies one ACK to an instance's elements. Only the sender's own elements of the phase the ACK
 * answers change; anything else is reported back as ignored so the caller can log and count it.
 */
export function applyAck(
  elements: Readonly<Record<string, InstanceElement>>,
  ack: AckInput,
  startPhaseOf: StartPhaseOf,
): AckApplication {
  const next: Record<string, InstanceElement> = { ...elements };
  const applied: string[] = [];
  const removed: string[] = [];
  const ignored: AckApplication['ignored'] = [];
  let failed = ack.stateChangeResult === 'FAILED';
  const reports: readonly ElementReport[] =
    ack.reports.length > 0
      ? ack.reports
      : Object.values(elements)
          .filter((element) => element.participantId === ack.participantId && startPhaseOf(element) === ack.phase)
          .map((element) => ({
            elementId: element.id,
            deployState: 'DELETED' as const,
            lockState: 'NONE' as const,
            message: ack.message,
            result: true,
          }));
  for (const report of reports) {
    const element = elements[report.elementId];
    if (element === undefined) {
      ignored.push({ elementId: report.elementId, reason: 'UNKNOWN_ELEMENT' });
      continue;
    }
    // The runtime (no participant) answers for its own elements and fails those it could not send (a reference
    // that could not be resolved); a participant only for its own.
    if (ack.participantId !== null && element.participantId !== ack.participantId) {
      ignored.push({ elementId: report.elementId, reason: 'NOT_OWNER' });
      continue;
    }
    if (startPhaseOf(element) !== ack.phase) {
      ignored.push({ elementId: report.elementId, reason: 'OTHER_PHASE' });
      continue;
    }
    // A redelivered ACK (a runtime replica died before committing its offset) finds the element already
    // out of transition in the reported state: applying it again would record the result twice.
    if (
      ack.stage === undefined &&
      !isElementTransitional(element) &&
      element.deployState === report.deployState &&
      element.lockState === report.lockState
    ) {
      ignored.push({ elementId: report.elementId, reason: 'ALREADY_APPLIED' });
      continue;
    }
    if (!report.result) {
      failed = true;
    }
    const staged = ack.stage !== undefined && report.result;
    next[element.id] = {
      ...element,
      deployState: report.deployState,
      lockState: report.lockState,
      // ONAP: a stage ACK keeps the sub-state (prepare stays PREPARING) and records the next stage.
      subState: staged ? element.subState : 'NONE',
      stage: staged ? (ack.stage ?? null) : element.stage,
      operationalState: report.operationalState ?? element.operationalState,
      useState: report.useState ?? element.useState,
      outProperties: report.outProperties ?? element.outProperties,
      message: truncate(report.message ?? ack.message),
    };
    applied.push(element.id);
    if (report.result && report.deployState === 'DELETED' && element.migrationState === 'REMOVED') {
      delete next[element.id];
      removed.push(element.id);
    }
  }
  return { elements: next, failed: failed && applied.length > 0, applied, removed, ignored };
}

export function isElementTransitional(element: InstanceElement): boolean {
  return isInstanceTransitional(element);
}

/** What the engine does after an ACK was applied. */
export type PhaseDecision =
  { readonly kind: 'WAIT' } | { readonly kind: 'ADVANCE'; readonly phase: number } | { readonly kind: 'COMPLETE' };

/**
 * The ACK-driven phase rule: while an element of the open phase is still transitional, wait; when
 * the phase is done, open the next phase that still has work (ascending for deploy and unlock,
 * descending otherwise); when nothing is left, complete. No timer is involved.
 */
export function decideNextPhase(
  order: InstanceOrder,
  openPhase: number,
  elements: Readonly<Record<string, InstanceElement>>,
  startPhaseOf: StartPhaseOf,
): PhaseDecision {
  const pending = Object.values(elements).filter(isElementTransitional).map(startPhaseOf);
  if (pending.length === 0) {
    return { kind: 'COMPLETE' };
  }
  const next = isForwardOrder(order) ? Math.min(...pending) : Math.max(...pending);
  return next === openPhase ? { kind: 'WAIT' } : { kind: 'ADVANCE', phase: next };
}

/** The elements a phase message is about: the transitional ones of that phase. */
export function elementsInPhase(
  elements: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
): InstanceElement[] {
  return Object.values(elements).filter((element) => isElementTransitional(element) && startPhaseOf(element) === phase);
}
