/**
 * Builds ONAP's simulator participant on any MessageBus. `main.ts` runs it on Kafka with its own HTTP
 * server. The runtime can embed it on its in-memory bus and mount `controlHandler` in its own app.
 */
import type { ParticipantTopics, Uuid } from '@acm/contracts';
import type { MessageBus, RecordSigningKey } from '@acm/messaging';
import { Participant, consoleParticipantLogger } from '@acm/participant-sdk';
import type { ParticipantLogger, ParticipantTimers, SupportedElementType } from '@acm/participant-sdk';

import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER, createControlApi } from './control-api';
import type { ControlHandler } from './control-api';
import { DropSwitch, DroppingMessageBus } from './drop-switch';
import { startupSimConfig } from './sim-config';
import type { SimConfig, SimOperation } from './sim-config';
import { SimConfigHolder, createSimulatorHandler } from './simulator-handler';
import { SimObservations } from './sim-observations';

/** ONAP's simulator participant id (`…6c90`). */
export const DEFAULT_SIM_PARTICIPANT_ID = '101c62b3-8918-41b9-a747-d21eb79c6c90';
/** ONAP's simulator element type. */
export const DEFAULT_SIM_ELEMENT_TYPES: readonly SupportedElementType[] = [
  { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' },
];

export interface SimulatorOptions {
  bus: MessageBus;
  /** Default ONAP's simulator id `101c62b3-8918-41b9-a747-d21eb79c6c90`. */
  participantId?: Uuid;
  replicaId?: Uuid;
  /** Default `org.onap.policy.clamp.acm.SimAutomationCompositionElement` 1.0.0. */
  supportedElementTypes?: readonly SupportedElementType[];
  topics?: ParticipantTopics;
  groupId?: string;
  heartbeatMs?: number;
  /** A value for every `*TimerMs` (0 = instant simulator). ONAP's defaults are used when this is absent. */
  timersMs?: number;
  /** Operations whose success flag starts false. */
  failOperations?: readonly SimOperation[];
  /** Explicit start-up SimConfig fields; these win over `timersMs` and `failOperations`. */
  config?: Partial<SimConfig>;
  /** Control API credentials; default ONAP's `participantUser` / `zb!XztG34`. `false` disables the check. */
  auth?: { user: string; password: string } | false;
  logger?: ParticipantLogger;
  timers?: ParticipantTimers;
  /** Start the participant (subscribe + REGISTER) before returning; default true. */
  start?: boolean;
  /** Signs every record sent as this principal (the SDK's `signing` option); absent: unsigned, as ONAP's simulator. */
  signing?: RecordSigningKey;
  /**
   * Observe every deployed element (the SDK's schedule and the runtime's STATUS_REQ), reporting it healthy and as
   * desired unless `PUT /observations` says otherwise. Default false: only the elements that route set are observed.
   */
  observeAll?: boolean;
  /** The SDK's observe schedule tick (ms); default the SDK's. */
  observeTickMs?: number;
}

export interface Simulator {
  participant: Participant;
  /** The live SimConfig (also reachable through `GET|PUT /parameters`). */
  settings: SimConfigHolder;
  /** The "drop next N messages" switch (also reachable through `GET|PUT /drop`). */
  drops: DropSwitch;
  /** What `observe` reports (also reachable through `GET|PUT|DELETE /observations`). */
  observations: SimObservations;
  /**
   * The control API (`/onap/policy/simparticipant/v2/...` and `/health`) as a `node:http` request listener.
   * Use it with `http.createServer(controlHandler)`, or as Express middleware with `app.use(controlHandler)`:
   * there it answers only paths under `/onap/policy/simparticipant` and passes everything else to `next`.
   */
  controlHandler: ControlHandler;
  /** Starts the participant when it was created with `start: false`. */
  start(): Promise<void>;
  /** Stops the participant (DEREGISTER). The bus belongs to the caller and stays open. */
  close(): Promise<void>;
}

/** Creates the simulated participant and its control API on `options.bus`. */
export async function createSimulator(options: SimulatorOptions): Promise<Simulator> {
  const startupOptions: Parameters<typeof startupSimConfig>[0] = {};
  if (options.timersMs !== undefined) {
    startupOptions.timersMs = options.timersMs;
  }
  if (options.failOperations !== undefined) {
    startupOptions.failOperations = options.failOperations;
  }
  if (options.config !== undefined) {
    startupOptions.config = options.config;
  }
  const settings = new SimConfigHolder(startupSimConfig(startupOptions));
  const drops = new DropSwitch();
  const observations = new SimObservations(options.observeAll ?? false);
  const identity = (): { participantId: Uuid; replicaId: Uuid } => ({
    participantId: participant.participantId,
    replicaId: participant.replicaId,
  });
  const participant: Participant = new Participant({
    participantId: options.participantId ?? DEFAULT_SIM_PARTICIPANT_ID,
    supportedElementTypes: options.supportedElementTypes ?? DEFAULT_SIM_ELEMENT_TYPES,
    bus: new DroppingMessageBus(options.bus, drops, identity, options.logger ?? consoleParticipantLogger),
    handler: createSimulatorHandler(settings, observations),
    // ONAP's simulator sets failUnsupportedOperation true, but it implements every operation, so the flag never applies.
    failUnsupportedOperation: true,
    ...(options.replicaId === undefined ? {} : { replicaId: options.replicaId }),
    ...(options.topics === undefined ? {} : { topics: options.topics }),
    ...(options.groupId === undefined ? {} : { groupId: options.groupId }),
    ...(options.signing === undefined ? {} : { signing: options.signing }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.timers === undefined ? {} : { timers: options.timers }),
    ...(options.observeTickMs === undefined ? {} : { observeTickMs: options.observeTickMs }),
  });
  const controlHandler = createControlApi({
    participant,
    settings,
    drops,
    observations,
    auth: options.auth ?? { user: DEFAULT_SIM_USER, password: DEFAULT_SIM_PASSWORD },
  });
  let started = false;
  const simulator: Simulator = {
    participant,
    settings,
    drops,
    observations,
    controlHandler,
    async start() {
      if (!started) {
        started = true;
        await participant.start();
      }
    },
    async close() {
      await participant.stop();
    },
  };
  if (options.start ?? true) {
    await simulator.start();
  }
  return simulator;
}
