import { MessageBus } from '@acm/messaging';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseSupportedElementTypes } from '../../../participant-simulator/src/config';
import type { Simulator } from '../../../participant-simulator/src/simulator';
import { createSimulator } from '../../../participant-simulator/src/simulator';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { ParticipantInboxListener } from './participant-inbox.listener';

/**
 * The built-in simulator participant of the embedded default (SIMULATOR=auto without Kafka): a newcomer
 * can prime and deploy ONAP's simulator compositions with nothing else running. It is the same simulator
 * as `npm run start:simulator`, on the in-process bus, and its control API is served by the runtime.
 */
@Injectable()
export class EmbeddedSimulator implements OnApplicationBootstrap {
  private readonly logger = new Logger('Simulator');
  private simulator: Simulator | null = null;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly bus: MessageBus,
    private readonly inbox: ParticipantInboxListener,
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
    await this.inbox.ready;
    this.simulator = await createSimulator({
      bus: this.bus,
      topics: { operation: this.config.operationTopic, sync: this.config.syncTopic },
      supportedElementTypes: parseSupportedElementTypes(this.config.simulatorElementTypes),
      timersMs: this.config.simulatorTimersMs,
      auth: false,
    });
    this.logger.log(
      `Built-in simulator participant ${this.simulator.participant.participantId} serves ${this.config.simulatorElementTypes}`,
    );
  }

  /** Sends the participant's DEREGISTER (called by the runtime's shutdown sequence, while the bus is open). */
  async stop(): Promise<void> {
    await this.simulator?.close();
  }
}
