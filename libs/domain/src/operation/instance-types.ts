import type { AutomationComposition } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { InstanceOperation, Operation } from '../ports/engine.port';
import type { Refusal } from '../refusal';
import type { ResendSettings } from '../control/resend-schedule';
import type { RetryPolicy } from '../control/retry-policy';
import type { Signal } from '../control/wait-condition';
import type { StateChangeResult } from '../states';
import type { ElementReport } from '../planners/phase-planner';
import type { OperationEffect } from './effects';
import type { OperationTemplates } from './topology';
import type { ReplaceUpdate } from './replace-steps';

/** One element of an ACK as the participant reported it; `result` null when the participant left it out. */
export type ReportedElement = Omit<ElementReport, 'result'> & { readonly result: boolean | null };

/** A deploy/state-change ACK, as the engine needs it (the wire message is mapped by the shell). */
export interface InstanceAck {
  /** null: the runtime answers for an element it runs itself (a wait condition). */
  readonly participantId: string | null;
  readonly replicaId: string | null;
  /** The messageId it answers; null for an ONAP participant that answers nothing in particular. */
  readonly responseTo: string | null;
  readonly stateChangeResult: StateChangeResult;
  readonly message: string | null;
  /** A stage ACK names the element's next stage; null on final ACKs. */
  readonly stage: number | null;
  readonly reports: readonly ReportedElement[];
}

/** The message an ACK answers, as recorded when it was sent. */
export interface AnsweredMessage {
  readonly operation: Operation;
  readonly phase: number | null;
}

/** One open phase message of the lost participant, with what is known of who took it. */
export interface OpenPhaseMessage {
  readonly messageId: string;
  /** The replicas of the lost participant that answered it. */
  readonly answeredBy: readonly string[];
  /** The elements of its phase it set going; null when the history does not say (it described the whole phase). */
  readonly covered: ReadonlySet<string> | null;
}

/** Which replicas are lost: some judged silent (OFF_LINE, or not answering a probe), or every one (a restart). */
export type LostReplicas =
  | { readonly kind: 'SILENT'; readonly silent: ReadonlySet<string>; readonly workers: ReadonlySet<string> }
  | { readonly kind: 'ALL' };

/**
 * What can happen to an instance's operation. Each kind is decided by its own module (`INSTANCE_INPUTS` in
 * instance-operation.ts names them); a new kind needs a case there and in the passes' table.
 */
export type InstanceInput =
  | {
      readonly kind: 'ORDER';
      readonly order: InstanceOrder;
      /**
       * An UPDATE of a deployed instance whose definition replaces or removes elements (replace-steps.ts): the new
       * properties and the orphans rule. Absent: the order runs as ONAP's.
       */
      readonly replace?: ReplaceUpdate;
      /**
       * Self-healing (a DEPLOY of a deployed instance): only these elements are deployed again, in the deploy's
       * graph order; the others keep their state. The caller adds their dependents (`withDependents`).
       */
      readonly heal?: readonly string[];
    }
  | {
      readonly kind: 'ACK';
      readonly ack: InstanceAck;
      readonly answered: AnsweredMessage | null;
      /**
       * The elements of the open phase its messages set going so far, when the shell read them (it must when a
       * parallelism limit applies); null otherwise: without a limit, every ready element was dispatched.
       */
      readonly dispatched: ReadonlySet<string> | null;
    }
  | { readonly kind: 'TICK' }
  /** Cancel the running operation; `dispatched`: every element its messages set going (for a rollback). */
  | { readonly kind: 'CANCEL'; readonly rollback: boolean; readonly dispatched: ReadonlySet<string> }
  | { readonly kind: 'PAUSE' }
  /**
   * Runtime-wide slots are free (MAX_PARALLEL_ELEMENTS, `context.runtimeSlots` of them): a waiting operation sends
   * what waited. `dispatched`: the elements of the open phase its messages set going so far.
   */
  | { readonly kind: 'SLOTS'; readonly dispatched: ReadonlySet<string> }
  /** Resume a paused operation; `dispatched`: the elements of the open phase its messages set going so far. */
  | { readonly kind: 'RESUME'; readonly dispatched: ReadonlySet<string> }
  /**
   * A supervision pass over a running operation: a due retry, a resend of a silent phase, a no-progress report.
   * The shell reads the open phase's messages, the elements the scheduled retry covers and those already
   * reported stuck since the last progress.
   */
  | {
      readonly kind: 'SUPERVISE';
      readonly messages: readonly OpenPhaseMessage[];
      readonly retrying: readonly string[];
      readonly reported: ReadonlySet<string>;
    }
  | {
      readonly kind: 'REPLICA_LOST';
      readonly participantId: string;
      readonly lost: LostReplicas;
      readonly messages: readonly OpenPhaseMessage[];
    }
  /** A signal for a wait-condition element (Heat's WaitConditionHandle), from the REST API. */
  | { readonly kind: 'SIGNAL'; readonly elementId: string; readonly signal: Signal }
  /** The child instance of a nested-composition element ended the order the element's operation gave it. */
  | {
      readonly kind: 'CHILD_ENDED';
      readonly elementId: string;
      readonly childInstanceId: string;
      /** The parent's operation that ordered the child. */
      readonly operationId: string;
      readonly result: boolean;
      readonly message: string | null;
      /** The child's outputs (the element's `outputs` read from the child's elements' outProperties). */
      readonly outputs: Readonly<Record<string, unknown>>;
    };

export type InstanceInputKind = InstanceInput['kind'];

/** The input of one kind. */
export type InputOf<K extends InstanceInputKind> = Extract<InstanceInput, { readonly kind: K }>;

/** The inputs a request may ask for in a state that does not allow them: they may be refused. */
export type RefusableInput = InputOf<'CANCEL' | 'PAUSE' | 'RESUME' | 'SIGNAL'>;

/** The inputs that are never refused: whatever the state, they are decided (possibly as "nothing to do"). */
export type UnrefusableInput = Exclude<InstanceInput, RefusableInput>;

/** What a step needs besides the state: templates, settings and a source of ids (time is an argument). */
export interface InstanceStepContext {
  readonly templates: OperationTemplates;
  /** MAX_OPERATION_WAIT: a phase's timeout when its elements name none. */
  readonly defaultTimeoutMs: number;
  /** Most elements of one operation in flight at once; null for no limit (ONAP). */
  readonly maxParallelElements: number | null;
  /**
   * Under a runtime-wide limit (MAX_PARALLEL_ELEMENTS), the free slots this step may fill: 0 for every step but the
   * one that fills free slots (`SLOTS`), so slots go to waiting operations in their stable order. The step then
   * keeps the operation's `control.inFlight` and `control.slotWait`. Null or absent: no runtime-wide limit (ONAP).
   * `runtimeSlotsFor` (slots-input.ts) says which orders count against that limit.
   */
  readonly runtimeSlots?: number | null;
  readonly newId: () => string;
  /** Control of running work; absent: no retries, no resends, no no-progress reports. */
  readonly control?: ControlSettings;
  /**
   * A plan runs the machine on answers that report nothing: references are not resolved then (the plan shows what
   * they read as known after deploy), so no element fails for them.
   */
  readonly planning?: boolean;
  /** How often a waiting health gate is evaluated and its participant asked for a fresh report; absent: 1 s. */
  readonly gatePollMs?: number;
}

/** The settings of the control of running work for one operation, resolved by the shell from configuration. */
export interface ControlSettings {
  /** The instance's retryPolicy, else its definition's; null: a failure fails the operation (ONAP). */
  readonly retryPolicy: RetryPolicy | null;
  /** MAX_WAIT_MS / MAX_RETRY_COUNT, or the definition's metadata. */
  readonly resend: ResendSettings;
  /** NO_PROGRESS_TIMEOUT (an element's `noProgressTimeoutMs` property wins). */
  readonly noProgressTimeoutMs: number;
}

/** An operation written by a step: inserted when new, updated otherwise. */
export interface OperationWrite {
  readonly operation: Operation;
  readonly isNew: boolean;
}

/** The state after one step, and what the world must be told. */
export interface InstanceStep {
  readonly target: AutomationComposition;
  /** The instance is gone (a finished DELETE): the shell deletes the row instead of writing `target`. */
  readonly removed: boolean;
  /** The operation the effects belong to, as it is after the step; null when the input concerned none. */
  readonly operation: InstanceOperation | null;
  /** Every operation the step changed, in the order they are written. */
  readonly operations: readonly OperationWrite[];
  readonly effects: readonly OperationEffect[];
}

/** What deciding one input gives: a step, or (for a refusable input) a refusal. */
export type InstanceDecision = InstanceStep | Refusal;
