/**
 * The participant author's vocabulary: what a handler receives (element and composition views, a
 * reporter, an abort signal) and what it may return. Kept free of any framework so a participant can
 * be a plain Node process, a NestJS provider, or embedded in a test.
 */
import type { PropertyMap, ToscaConceptIdentifier, Uuid } from '@acm/contracts';
import type { AcTypeState, DeployState, LockState, MigrationState, StateChangeResult } from '@acm/domain';

/**
 * An element type this participant can run (REGISTER / STATUS `participantSupportedElementType`).
 *
 * @publicApi Participant authors declare these; the runtime routes element node templates of
 * exactly these `(type, type_version)` pairs to this participant when priming.
 */
export interface SupportedElementType {
  typeName: string;
  typeVersion: string;
}

/**
 * One element definition of a primed composition, as this participant knows it.
 *
 * @publicApi Handed to element handlers (`ctx.compositionElement`) and `prime`/`deprime`, and returned
 * by `Participant.getComposition`; it is ONAP's CompositionElementDto with every field resolved.
 */
export interface CompositionElement {
  compositionId: Uuid;
  /** The node template's `{name, version}`; also the instance element's `definition`. */
  definition: ToscaConceptIdentifier;
  /** The node template's `type` / `type_version`, when the runtime sent the template. */
  type?: string;
  typeVersion?: string;
  /** The node template's properties (ONAP's `inProperties`), e.g. `startPhase`, `stage`, and the author's own. */
  inProperties: PropertyMap;
  /** The definition's outProperties (what the participant reported for this element definition). */
  outProperties: PropertyMap;
  /** `inProperties.startPhase` as an integer (0 when absent), the phase the element deploys in. */
  startPhase: number;
  /** The node template's metadata, when the runtime sent the template (e.g. `observe_interval`). */
  metadata?: PropertyMap;
}

/**
 * A composition (AC definition) as cached by the participant: only the element definitions it owns.
 *
 * @publicApi Argument of `ElementHandler.prime` / `deprime`, result of `Participant.getComposition(s)`.
 */
export interface Composition {
  compositionId: Uuid;
  state: AcTypeState;
  revisionId?: Uuid;
  elements: CompositionElement[];
}

/**
 * One element of an instance, as cached by the participant.
 *
 * @publicApi Handed to element handlers (`ctx.instanceElement`) and returned by
 * `Participant.getInstance(s)`; it is ONAP's InstanceElementDto plus the element's cached states.
 */
export interface InstanceElement {
  instanceId: Uuid;
  /** The element id (ONAP's `elementId`). */
  id: Uuid;
  definition: ToscaConceptIdentifier;
  /** The element's user properties (ONAP's instance `inProperties`). */
  properties: PropertyMap;
  /** What the participant reported so far. */
  outProperties: PropertyMap;
  deployState: DeployState;
  lockState: LockState;
  migrationState?: MigrationState;
  operationalState?: string;
  useState?: string;
}

/**
 * An instance (AC) as cached by the participant: only its own elements.
 *
 * @publicApi Returned by `Participant.getInstance(s)` (the simulator's `GET /instances` shows it).
 */
export interface Instance {
  instanceId: Uuid;
  compositionId?: Uuid;
  compositionTargetId?: Uuid;
  revisionId?: Uuid;
  deployState: DeployState;
  lockState: LockState;
  stateChangeResult: StateChangeResult;
  elements: InstanceElement[];
}

/**
 * Runtime information an element may push at any time, outside any order (ONAP's `sendAcElementInfo`).
 *
 * @publicApi Used in results, `ctx.report.info` and `Participant.sendElementInfo`.
 */
export interface ReportedElementInfo {
  outProperties?: PropertyMap;
  operationalState?: string;
  useState?: string;
}

/**
 * A successful element operation. Omitted fields keep their cached values.
 *
 * @publicApi What a handler returns (or passes to `ctx.report.done`) when the operation worked.
 */
export interface ElementSuccess extends ReportedElementInfo {
  ok: true;
  /** Text shown in the element's `message` at the runtime. Default: the operation's past tense ("Deployed"). */
  message?: string;
}

/**
 * A failed element operation: the element goes back to the state it had before the order
 * (deploy → UNDEPLOYED, undeploy → DEPLOYED, lock → UNLOCKED, unlock → LOCKED, delete → UNDEPLOYED, …).
 *
 * @publicApi What a handler returns (or passes to `ctx.report.failed`) when the operation failed.
 */
export interface ElementFailure extends ReportedElementInfo {
  ok: false;
  message: string;
}

/**
 * @publicApi The final outcome of one element operation.
 */
export type ElementResult = ElementSuccess | ElementFailure;

/**
 * What an element handler may return: a result (reported at once), nothing (= success), or `'pending'`
 * when it will report later through `ctx.report` (Heat's handle_create / check_create_complete pattern).
 *
 * @publicApi Return type of every element handler method.
 */
export type ElementOutcome = ElementResult | 'pending' | void;

/**
 * Reports an element operation's result later, after the handler returned `'pending'`. Only the first
 * `done`/`failed` call of an operation counts; later ones are logged and ignored, as are reports of an
 * operation superseded by a newer order for the same element or cancelled by the runtime.
 *
 * @publicApi The `ctx.report` object every element handler receives.
 */
export interface ElementReporter {
  /** Reports success; resolves once the ack is published. */
  done(result?: Omit<ElementSuccess, 'ok'>): Promise<void>;
  /** Reports failure; resolves once the ack is published. */
  failed(message: string, info?: ReportedElementInfo): Promise<void>;
  /**
   * Pushes runtime information (a PARTICIPANT_STATUS) without finishing the operation. Resolves once the message
   * is queued: it leaves ahead of the operation's ack, usually in the same request to the broker.
   */
  info(info: ReportedElementInfo): Promise<void>;
  /** True once `done`/`failed` (or a returned result) has been reported. */
  readonly reported: boolean;
}

/**
 * Everything an element handler gets for one element of one order.
 *
 * @publicApi Argument of every element handler method.
 */
export interface ElementContext {
  /** The order's `messageId` (acks answer it in `responseTo`). */
  messageId: Uuid;
  instanceId: Uuid;
  compositionId: Uuid;
  /** The element's definition in the instance's composition (ONAP's `compositionElement`). */
  compositionElement: CompositionElement;
  /** The element as it is now: properties, outProperties, states (ONAP's `instanceElement`). */
  instanceElement: InstanceElement;
  /** The order's start phase (deploy-like orders) or stage (migrate / prepare), else 0. */
  phase: number;
  report: ElementReporter;
  /** Aborted when the runtime cancels the operation (SYNC with TIMEOUT), a newer order replaces it, or the participant stops. */
  signal: AbortSignal;
}

/**
 * Context of `update`: the element before (`instanceElement`) and after (`instanceElementUpdated`).
 *
 * @publicApi Argument of `ElementHandler.update`.
 */
export interface UpdateContext extends ElementContext {
  instanceElementUpdated: InstanceElement;
}

/**
 * Context of `migrate`, `migratePrecheck` and `rollbackMigration`: source and target views. A NEW element has
 * no source (`compositionElement.inProperties` empty), a REMOVED one is reported DELETED when the handler succeeds.
 *
 * @publicApi Argument of the migration handler methods.
 */
export interface MigrationContext extends ElementContext {
  compositionElementTarget: CompositionElement;
  instanceElementMigrate: InstanceElement;
  /** The stage being run (also `phase`). */
  stage: number;
  /** The element's next stage after this one, or `stage` itself when this is its last. */
  nextStage: number;
}

/**
 * Context of `prepare` (staged) and `review`.
 *
 * @publicApi Argument of `ElementHandler.prepare` / `review`.
 */
export interface PrepareContext extends ElementContext {
  stage: number;
  nextStage: number;
}

/**
 * A successful prime/deprime. `outProperties` is keyed by element definition `"<name> <version>"` (ONAP's
 * CompositionDto key) or by name alone, and is sent back in PRIME_ACK `outPropertiesList`.
 *
 * @publicApi Returned by `prime` / `deprime` or passed to `ctx.report.done`.
 */
export interface CompositionSuccess {
  ok: true;
  message?: string;
  outProperties?: Record<string, PropertyMap>;
}

/**
 * @publicApi A failed prime (composition stays COMMISSIONED) or deprime (stays PRIMED).
 */
export interface CompositionFailure {
  ok: false;
  message: string;
  outProperties?: Record<string, PropertyMap>;
}

/** @publicApi The final outcome of a prime or deprime. */
export type CompositionResult = CompositionSuccess | CompositionFailure;

/** @publicApi What `prime` / `deprime` may return (see {@link ElementOutcome}). */
export type CompositionOutcome = CompositionResult | 'pending' | void;

/**
 * Reports a prime/deprime later, after the handler returned `'pending'`.
 *
 * @publicApi The `ctx.report` object of `prime` / `deprime`.
 */
export interface CompositionReporter {
  done(result?: Omit<CompositionSuccess, 'ok'>): Promise<void>;
  failed(message: string): Promise<void>;
  readonly reported: boolean;
}

/**
 * @publicApi Second argument of `prime` / `deprime`.
 */
export interface CompositionContext {
  messageId: Uuid;
  report: CompositionReporter;
  signal: AbortSignal;
}

/**
 * What `observe` found of one deployed element (a provider's Read, Heat's check). Reported in the STATUS element
 * info's `observation` (an extension ONAP's participants never send) with the operational and use state and the
 * outProperties, which are also cached as `ctx.report.info` caches them.
 *
 * @publicApi Returned by `ElementHandler.observe`.
 */
export interface ElementObservation extends ReportedElementInfo {
  /** False: the element is gone. */
  present: boolean;
  healthy: boolean;
  /** Why it is unhealthy or gone. */
  reason?: string;
  /** The properties as observed; the runtime compares them with the desired ones (drift). Absent: not compared. */
  properties?: PropertyMap;
}

/**
 * Everything `observe` gets for one deployed element.
 *
 * @publicApi Argument of `ElementHandler.observe`.
 */
export interface ObserveContext {
  instanceId: Uuid;
  compositionId: Uuid;
  compositionElement: CompositionElement;
  instanceElement: InstanceElement;
}

/**
 * The participant's business logic, like ONAP's AcElementListenerV4. `deploy` and `undeploy` are
 * required; every other operation is optional: when absent the SDK answers success "Not implemented",
 * or FAILED "Not supported" with `failUnsupportedOperation: true`. A thrown error (or rejected promise)
 * becomes a FAILED report with ONAP's fallback state.
 *
 * @publicApi The one interface a participant author implements.
 */
export interface ElementHandler {
  deploy(ctx: ElementContext): Promise<ElementOutcome> | ElementOutcome;
  undeploy(ctx: ElementContext): Promise<ElementOutcome> | ElementOutcome;
  lock?(ctx: ElementContext): Promise<ElementOutcome> | ElementOutcome;
  unlock?(ctx: ElementContext): Promise<ElementOutcome> | ElementOutcome;
  delete?(ctx: ElementContext): Promise<ElementOutcome> | ElementOutcome;
  prime?(composition: Composition, ctx: CompositionContext): Promise<CompositionOutcome> | CompositionOutcome;
  deprime?(composition: Composition, ctx: CompositionContext): Promise<CompositionOutcome> | CompositionOutcome;
  update?(ctx: UpdateContext): Promise<ElementOutcome> | ElementOutcome;
  migrate?(ctx: MigrationContext): Promise<ElementOutcome> | ElementOutcome;
  migratePrecheck?(ctx: MigrationContext): Promise<ElementOutcome> | ElementOutcome;
  rollbackMigration?(ctx: MigrationContext): Promise<ElementOutcome> | ElementOutcome;
  prepare?(ctx: PrepareContext): Promise<ElementOutcome> | ElementOutcome;
  review?(ctx: PrepareContext): Promise<ElementOutcome> | ElementOutcome;
  /**
   * Looks at one deployed element and says what runs: run on the runtime's PARTICIPANT_STATUS_REQ and on the
   * participant's own schedule (node template metadata `observe_interval`, seconds, with jitter). Absent: the
   * participant reports no observation and the runtime keeps ONAP's behaviour (health Unknown). Null: nothing to
   * report of this element this time.
   */
  observe?(ctx: ObserveContext): Promise<ElementObservation | null> | ElementObservation | null;
}

/** @publicApi Names of the element handler methods (also the simulator's operation names). */
export type ElementOperation =
  | 'deploy'
  | 'undeploy'
  | 'lock'
  | 'unlock'
  | 'delete'
  | 'update'
  | 'migrate'
  | 'migratePrecheck'
  | 'rollbackMigration'
  | 'prepare'
  | 'review';

/** @publicApi Names of the composition handler methods. */
export type CompositionOperation = 'prime' | 'deprime';

/** @publicApi Log levels the SDK emits. */
export type ParticipantLogLevel = 'error' | 'warn' | 'info' | 'debug';

/**
 * Where the SDK writes logs. A function, so it can be routed to NestJS's Logger, pino or a test spy
 * without the SDK depending on any of them (same shape as `@acm/messaging`'s BusLogger).
 *
 * @publicApi Option `logger` of {@link ParticipantOptions}.
 */
export type ParticipantLogger = (
  level: ParticipantLogLevel,
  message: string,
  context?: Record<string, unknown>,
) => void;

/**
 * Timer source for heartbeats; injectable so tests drive heartbeats without sleeping.
 *
 * @publicApi Option `timers` of the participant (defaults to Node's unref'd `setInterval`).
 */
export interface ParticipantTimers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}
