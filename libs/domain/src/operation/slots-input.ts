import type { AutomationComposition } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { InstanceOperation, SlotWait } from '../ports/engine.port';
import { phaseDeadline } from '../planners/deadlines';
import { phaseLookup, waitsOf } from './topology';
import { countsAgainstRuntimeLimit, describedWith, nextDispatch } from './dispatch';
import type { InputOf, InstanceInput, InstanceStep, InstanceStepContext } from './instance-types';
import { inFlightOf, sendPhase, stepWith, unchanged } from './step-parts';

/** The runtime-wide parallelism limit (MAX_PARALLEL_ELEMENTS): who may fill free slots, and what each step holds. */

/**
 * The slots a step may fill (`InstanceStepContext.runtimeSlots`): null, so the step is not counted, when the runtime
 * has no limit or the order does not count against it (`countsAgainstRuntimeLimit`); `free` otherwise. `order` is
 * the order whose operation the step concerns (null: none, then the step is counted).
 */
export function runtimeSlotsFor(runtimeLimit: number | null, order: InstanceOrder | null, free: number): number | null {
  return runtimeLimit === null || (order !== null && !countsAgainstRuntimeLimit(order)) ? null : free;
}

/**
 * Free runtime-wide slots: a waiting operation sends what waited, in its stable order, as many as the slots and
 * its own `maxParallelElements` allow: the phase's opening message (PHASE_STARTED, with the first phase's flag)
 * when none of it went yet, more elements of the open phase otherwise. A phase's deadline starts when it opens.
 */
export function fillSlots(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'SLOTS'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const wait = running?.control.slotWait ?? null;
  if (!running || wait === null || running.control.pausedAt !== null) {
    return unchanged(target, [], running);
  }
  const phase = running.phase ?? 0;
  const startPhaseOf = phaseLookup(running.order, context.templates);
  const { dispatch } = nextDispatch({
    elements: target.elements,
    phase,
    startPhaseOf,
    waits: waitsOf(running.order, target.elements, context.templates),
    inFlight: inFlightOf(input.dispatched, target.elements, phase, startPhaseOf),
    limit: context.maxParallelElements,
    budget: context.runtimeSlots ?? null,
  });
  if (dispatch.size === 0) {
    return unchanged(target, [], running);
  }
  const opening = wait !== 'ELEMENTS';
  const effect = opening
    ? sendPhase(target, phase, startPhaseOf, {
        firstPhase: wait === 'FIRST_PHASE',
        describe: describedWith(target.elements, phase, startPhaseOf, dispatch),
      })
    : sendPhase(target, phase, startPhaseOf, { describe: dispatch, event: 'ELEMENTS_DISPATCHED' });
  const moved: InstanceOperation = {
    ...running,
    deadlineAt: opening ? phaseDeadline(target, now, context.defaultTimeoutMs) : running.deadlineAt,
    control: { ...running.control, progressAt: now },
  };
  return stepWith({ ...target, lastMsg: now }, moved, [effect]);
}

/** The elements of the open phase a step sets going: its phase messages, not the resends of earlier ones. */
function sentBy(step: InstanceStep, phase: number): string[] {
  return step.effects.flatMap((effect) =>
    effect.kind === 'SEND_PHASE' && effect.phase === phase && effect.resentMessageId === null ? effect.dispatched : [],
  );
}

/** What an input says was dispatched in the open phase before it; null when the shell did not read it. */
function knownDispatched(input: InstanceInput): ReadonlySet<string> | null {
  switch (input.kind) {
    case 'ACK':
    case 'RESUME':
    case 'SLOTS':
      return input.dispatched;
    default:
      return null;
  }
}

/**
 * Under a runtime-wide limit, keeps what the runtime counts on the running operation after a step: its elements in
 * flight (`control.inFlight`) and what it waits for a slot to send (`control.slotWait`), written only when they
 * change. A step that neither dispatches nor was told what was dispatched (a tick, a resend) leaves them as they are.
 */
export function accountSlots(
  step: InstanceStep,
  running: InstanceOperation | null,
  input: InstanceInput,
  context: InstanceStepContext,
): InstanceStep {
  const operation = step.operation;
  if (operation === null || operation.state !== 'RUNNING' || step.removed) {
    return step;
  }
  const same = running !== null && running.operationId === operation.operationId;
  const samePhase = same && running.phase === operation.phase;
  const known = knownDispatched(input);
  if (samePhase && known === null) {
    return step;
  }
  const phase = operation.phase ?? 0;
  const going = new Set([...(samePhase && known !== null ? known : []), ...sentBy(step, phase)]);
  const elements = step.target.elements;
  const startPhaseOf = phaseLookup(operation.order, context.templates);
  const inFlight = inFlightOf(going, elements, phase, startPhaseOf);
  const { dispatch } = nextDispatch({
    elements,
    phase,
    startPhaseOf,
    waits: waitsOf(operation.order, elements, context.templates),
    inFlight,
    limit: context.maxParallelElements,
  });
  const wants = [...dispatch].some((id) => !going.has(id));
  const slotWait: SlotWait | null = !wants
    ? null
    : going.size > 0
      ? 'ELEMENTS'
      : !same
        ? 'FIRST_PHASE'
        : samePhase
          ? (running.control.slotWait ?? 'PHASE')
          : 'PHASE';
  if (operation.control.inFlight === inFlight.length && operation.control.slotWait === slotWait) {
    return step;
  }
  const counted: InstanceOperation = {
    ...operation,
    control: { ...operation.control, inFlight: inFlight.length, slotWait },
  };
  const written = step.operations.some((write) => write.operation.operationId === counted.operationId);
  return {
    ...step,
    operation: counted,
    operations: written
      ? step.operations.map((write) =>
          write.operation.operationId === counted.operationId ? { ...write, operation: counted } : write,
        )
      : [...step.operations, { operation: counted, isNew: false }],
  };
}
