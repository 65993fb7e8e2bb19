import type { AutomationComposition } from '../model';
import type { InstanceOperation } from '../ports/engine.port';
import { isRefusal } from '../refusal';
import type {
  InputOf,
  InstanceDecision,
  InstanceInput,
  InstanceInputKind,
  InstanceStep,
  InstanceStepContext,
  UnrefusableInput,
} from './instance-types';
import { decideOrder } from './order-input';
import { applyGatedAck } from './gate-input';
import { supervise, tick } from './supervision-input';
import { cancel, pause, resume } from './control-input';
import { settleWaitConditions, signalWait } from './wait-condition-input';
import { settleReferences } from './reference-input';
import { accountSlots, fillSlots } from './slots-input';
import { handOver } from './lost-replica-input';
import { childEnded, settleNestedCompositions } from './nested-input';

export type {
  AnsweredMessage,
  ControlSettings,
  InputOf,
  InstanceAck,
  InstanceDecision,
  InstanceInput,
  InstanceInputKind,
  InstanceStep,
  InstanceStepContext,
  LostReplicas,
  OpenPhaseMessage,
  OperationWrite,
  RefusableInput,
  ReportedElement,
  UnrefusableInput,
} from './instance-types';
export { ackForAnotherTarget, operationOfAck } from './ack-input';
export type { SupervisionContext, SupervisionDue } from './supervision-input';
export { needsSupervision, supervisionDueOf } from './supervision-input';
export { hasUnfinishedWorkOf, silentAfterProbe } from './lost-replica-input';
export { runtimeSlotsFor } from './slots-input';
export type { StoredNestedState } from './nested-input';
export { NESTED_STATE_PROPERTY, childUpdateOf, childrenToOrder, storedNestedStateOf } from './nested-input';

/** How one input kind is decided: `(target, running, input, now, context) → step`, or a refusal. */
type InputDecider<K extends InstanceInputKind> = (
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<K>,
  now: number,
  context: InstanceStepContext,
) => InstanceDecision;

/** The module that decides each input kind; the type makes a new kind fail to compile until it is named here. */
export const INSTANCE_INPUTS: { readonly [K in InstanceInputKind]: InputDecider<K> } = {
  ORDER: decideOrder, // order-input.ts
  ACK: applyGatedAck, // gate-input.ts, then ack-input.ts
  TICK: tick, // supervision-input.ts
  SUPERVISE: supervise, // supervision-input.ts
  CANCEL: cancel, // control-input.ts
  PAUSE: pause, // control-input.ts
  RESUME: resume, // control-input.ts
  SIGNAL: signalWait, // wait-condition-input.ts
  SLOTS: fillSlots, // slots-input.ts
  REPLICA_LOST: handOver, // lost-replica-input.ts
  CHILD_ENDED: childEnded, // nested-input.ts
};

/**
 * A pass over the step an input's module decided, before it is saved: it rewrites what every module would
 * otherwise repeat. `changes` lists the inputs whose steps it may change; the others' steps it leaves as they are
 * (a spec checks it), so it is not run for them.
 */
export interface InstancePass {
  readonly name: string;
  readonly changes: readonly InstanceInputKind[];
  readonly run: (
    step: InstanceStep,
    running: InstanceOperation | null,
    input: InstanceInput,
    now: number,
    context: InstanceStepContext,
  ) => InstanceStep;
}

/** The passes, in the order they run. */
export const INSTANCE_PASSES: readonly InstancePass[] = [
  {
    // The phase messages a step sends that set wait conditions going start them here (a deploy starts the wait
    // and may pull the deadline in; any other order completes them at once, through the ACK rules). A tick and a
    // pause send no phase message.
    name: 'settleWaitConditions',
    changes: ['ORDER', 'ACK', 'SUPERVISE', 'CANCEL', 'RESUME', 'SIGNAL', 'SLOTS', 'REPLICA_LOST', 'CHILD_ENDED'],
    run: (step, _running, _input, now, context) => settleWaitConditions(step, now, context),
  },
  {
    // The phase messages a step sends that set nested compositions going record the order their child must run
    // (the shell orders the child); a message of nested elements only is not published. Before the references: a
    // nested element's own properties are not sent to a participant.
    name: 'settleNestedCompositions',
    changes: ['ORDER', 'ACK', 'SUPERVISE', 'CANCEL', 'RESUME', 'SIGNAL', 'SLOTS', 'REPLICA_LOST', 'CHILD_ENDED'],
    run: (step, _running, _input, now, context) => settleNestedCompositions(step, now, context),
  },
  {
    // The elements a deploy or an update sets going have their references resolved: one that cannot be resolved
    // fails that element (through the ACK rules), the values of the others are recorded. After the wait conditions,
    // whose answers may set more elements going; before the slots, which count what went.
    // A hand-over resends what was resolved already; a cancel's rollback is no deploy or update.
    name: 'settleReferences',
    changes: ['ORDER', 'ACK', 'SUPERVISE', 'RESUME', 'SIGNAL', 'SLOTS', 'CHILD_ENDED'],
    run: (step, _running, _input, now, context) => settleReferences(step, now, context),
  },
  {
    // Under a runtime-wide limit (MAX_PARALLEL_ELEMENTS), what the operation holds in flight and waits a slot for.
    // A tick, a pause, a supervision pass and a hand-over keep the phase and were told nothing of what went.
    name: 'accountSlots',
    changes: ['ORDER', 'ACK', 'CANCEL', 'RESUME', 'SIGNAL', 'SLOTS', 'CHILD_ENDED'],
    run: (step, running, input, _now, context) =>
      context.runtimeSlots === undefined || context.runtimeSlots === null
        ? step
        : accountSlots(step, running, input, context),
  },
];

/**
 * One step of an instance's operation: `(target, running operation, input, now) → {target, operations, effects}`.
 * `running` is the instance's running operation, if any. Pure: every decision of the engine is taken here. The
 * input's own module decides (`INSTANCE_INPUTS`), then the passes run (`INSTANCE_PASSES`). A request the state does
 * not allow (cancel, pause, resume or signal) comes back as a `Refusal`; the other inputs are never refused.
 */
export function decideInstance(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: UnrefusableInput,
  now: number,
  context: InstanceStepContext,
): InstanceStep;
export function decideInstance(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InstanceInput,
  now: number,
  context: InstanceStepContext,
): InstanceDecision;
export function decideInstance(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InstanceInput,
  now: number,
  context: InstanceStepContext,
): InstanceDecision {
  const decided = decideInput(target, running, input, now, context);
  if (isRefusal(decided)) {
    return decided;
  }
  return INSTANCE_PASSES.reduce(
    (step, pass) => (pass.changes.includes(input.kind) ? pass.run(step, running, input, now, context) : step),
    decided,
  );
}

function decideInput(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InstanceInput,
  now: number,
  context: InstanceStepContext,
): InstanceDecision {
  // The table is indexed by the input's own kind, so the decider takes exactly that input.
  const decider = INSTANCE_INPUTS[input.kind] as InputDecider<typeof input.kind>;
  return decider(target, running, input, now, context);
}
