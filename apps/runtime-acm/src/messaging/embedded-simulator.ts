import { InMemoryMessageBus, MessageBus } from '@acm/messaging';
import { defaultGroupId } from '@acm/participant-sdk';
import type { ParticipantLogger } from '@acm/participant-sdk';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as PinoLogger } from 'pino';
import type { Simulator } from '@acm/simulator';
import { DEFAULT_SIM_PARTICIPANT_ID, createSimulator, parseSupportedElementTypes } from '@acm/simulator';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { DATABASE } from '../database/database';
import type { Database } from '../database/database';
import { OperationSupervisor } from '../engine/operation-supervisor';
import { ROOT_LOGGER } from '../observability/logging';
import { ParticipantProtocolService } from '../application/participant-protocol.service';
import type { RuntimeConfig } from '../config/runtime.config';
import { ParticipantInboxListener } from './participant-inbox.listener';

/** The built-in participant heartbeats this many times per MAX_STATUS_WAIT. */
const HEARTBEATS_PER_STATUS_WAIT = 4;

/**
 * The built-in simulator participant of the embedded default (SIMULATOR=auto without Kafka): a newcomer
 * can prime and deploy ONAP's simulator compositions with nothing else running. It is the same simulator
 * as `npm run start:simulator`, on the in-process bus, and its control API is served by the runtime.
 */
/** The SDK's pluggable logger onto the runtime's: the built-in participant's lines are JSON like the rest. */
function participantLogger(logger: PinoLogger): ParticipantLogger {
  return (level, message, context) => logger[level](context ?? {}, message);
}

@Injectable()
export class EmbeddedSimulator implements OnApplicationBootstrap {
  private readonly logger = new Logger('Simulator');
  private simulator: Simulator | null = null;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly bus: MessageBus,
    private readonly inbox: ParticipantInboxListener,
    @Inject(DATABASE) private readonly database: Database,
    private readonly participants: ParticipantProtocolService,
    private readonly supervisor: OperationSupervisor,
    @Inject(ROOT_LOGGER) private readonly rootLogger: PinoLogger,
  ) {}

  /** Serves the simulator's control API (ONAP's /onap/policy/simparticipant/v2) once it runs. */
  middleware() {
    return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
      if (this.simulator === null) {
        next();
        return;
      }
      this.simulator.controlHandler(request, response, next);
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.simulator) {
      return;
    }
    // With the embedded database and the in-process bus no participant outside this process can exist: the
    // replicas of an earlier run are dead, and the work they held (the orders they had taken, and the orders
    // the in-process bus still held) died with them.
    const orphaned =
      this.database.embedded && this.bus instanceof InMemoryMessageBus
        ? await this.participants.forgetReplicasOfEarlierRuns()
        : [];
    await this.inbox.ready;
    this.simulator = await createSimulator({
      bus: this.bus,
      topics: { operation: this.config.operationTopic, sync: this.config.syncTopic },
      // On Kafka the built-in participants of a deployment's runtime replicas share one group of their own.
      groupId: `${this.config.kafkaGroupId}-${defaultGroupId(DEFAULT_SIM_PARTICIPANT_ID)}`,
      supportedElementTypes: parseSupportedElementTypes(this.config.simulatorElementTypes),
      timersMs: this.config.simulatorTimersMs,
      // Its heartbeat is cheap in-process; well within MAX_STATUS_WAIT, so a busy runtime never sees it silent.
      heartbeatMs: Math.max(1, Math.floor(this.config.maxStatusWaitMs / HEARTBEATS_PER_STATUS_WAIT)),
      auth: false,
      logger: participantLogger(this.rootLogger.child({ context: 'Participant' })),
    });
    this.logger.log(
      `Built-in simulator participant ${this.simulator.participant.participantId} serves ${this.config.simulatorElementTypes}`,
    );
    const resent = await this.supervisor.resendAfterRestart(orphaned);
    if (resent > 0) {
      this.logger.log(`Resumed ${resent} operation(s) the previous run left unfinished`);
    }
  }

  /** Sends the participant's DEREGISTER (called by the runtime's shutdown sequence, while the bus is open). */
  async stop(): Promise<void> {
    await this.simulator?.close();
  }
}
