import {
  AuditLedger,
  Clock,
  IdGenerator,
  OperationSessions,
  ReadModels,
  RetentionStore,
  RolloutStore,
  EventFeed,
  SubscriptionStore,
  ObservationStore,
  WindowStore,
  ApprovalStore,
  CronCalendar,
  UnitOfWork,
} from '@acm/domain';
import { InMemoryMessageBus, MessageBus } from '@acm/messaging';
import {
  BufferedSessions,
  RandomIdGenerator,
  StoreReadModels,
  SystemClock,
  TypeOrmRetentionStore,
  TypeOrmAuditLedger,
  TypeOrmRolloutStore,
  TypeOrmEventFeed,
  TypeOrmSubscriptionStore,
  TypeOrmObservationStore,
  TypeOrmWindowStore,
  TypeOrmApprovalStore,
  TypeOrmUnitOfWork,
} from '@acm/persistence';
import type { DynamicModule, OnApplicationShutdown } from '@nestjs/common';
import { Inject, Injectable, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { Logger as PinoLogger } from 'pino';
import { CommissioningService } from './application/commissioning.service';
import { ApprovalsService } from './application/approvals.service';
import { InstanceOrders } from './application/instance-orders';
import { AccessRefusals } from './application/access-refusals.service';
import { AuditService } from './application/audit.service';
import { HistoryService } from './application/history.service';
import { GraphService } from './application/graph.service';
import { PlanService } from './application/plan.service';
import { OrderPlanService } from './application/order-plan.service';
import { DefinitionDocsService } from './application/definition-docs.service';
import { InstanceProperties } from './application/instance-properties';
import { InstantiationService } from './application/instantiation.service';
import { AnswerGroupCommit } from './application/answer-group-commit';
import { ObservationService } from './application/observation.service';
import { HealingService } from './application/healing.service';
import { ObservationMetrics } from './metrics/observation-metrics';
import { NotificationMetrics } from './metrics/notification-metrics';
import { ControlService } from './application/control.service';
import { GroupScalingService } from './application/group-scaling.service';
import { ParticipantsService } from './application/participants.service';
import { TemplateReader } from './engine/template-reader';
import { RUNTIME_CONFIG } from './config/runtime.config';
import type { RuntimeConfig } from './config/runtime.config';
import { DATABASE } from './database/database';
import type { Database } from './database/database';
import { EngineMetrics } from './engine/engine-metrics';
import { OperationInterventions } from './engine/operation-interventions';
import { OperationEngine } from './engine/operation-engine';
import { OperationSupervisor } from './engine/operation-supervisor';
import { CommitNudge, ParallelSlots } from './engine/parallel-slots';
import { EffectWriter } from './engine/effect-writer';
import { OperationSteps } from './engine/operation-steps';
import { ParticipantProtocolService } from './application/participant-protocol.service';
import { HTTP_CONTROLLERS } from './http/controllers';
import { LiveEvents } from './live/live-events';
import { EventFeedFollower } from './live/event-feed-follower';
import { NotificationDelivery } from './live/notification-delivery';
import { SubscriptionsService } from './application/subscriptions.service';
import { WindowsService } from './application/windows.service';
import { CronLibraryCalendar } from './application/cron-calendar';
import { OperabilityMetrics } from './metrics/operability-metrics';
import { RolloutMetrics } from './metrics/rollout-metrics';
import { StorageMetrics } from './metrics/storage-metrics';
import { EventLog } from './observability/event-log';
import { ROOT_LOGGER } from './observability/logging';
import { ObservedUnitOfWork } from './observability/observed-unit-of-work';
import { OperationTraces } from './observability/operation-traces';
import { RuntimeMetrics } from './metrics/runtime-metrics';
import { EmbeddedSimulator } from './messaging/embedded-simulator';
import { messageBusProvider } from './messaging/message-bus.provider';
import { OutboxRelay } from './messaging/outbox-relay';
import { ParticipantInboxListener } from './messaging/participant-inbox.listener';
import { SensitiveValues } from './security/sensitive-values';
import { HistoryRetention } from './supervision/history-retention';
import { RolloutService } from './application/rollout.service';
import { RolloutSweep } from './supervision/rollout-sweep';
import { NestedSweep } from './supervision/nested-sweep';
import { NestedCompositions } from './application/nested-compositions';
import { SupervisionScheduler } from './supervision/supervision.scheduler';
import { DueTimeNudge, SupervisionTimer } from './supervision/supervision-timer';

/**
 * The one shutdown sequence, in dependency order. Nest runs the shutdown hooks of one module's providers
 * concurrently, so each component exposes `stop()` and only this hook calls them: the periodic work ends,
 * the built-in participant deregisters while the bus and the inbox still run, the inbox handles what was
 * already published, then the bus and the database close. HTTP requests in flight finished before (Nest
 * closes the server first).
 */
@Injectable()
class ShutdownSequence implements OnApplicationShutdown {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly bus: MessageBus,
    private readonly supervision: SupervisionScheduler,
    private readonly simulator: EmbeddedSimulator,
    private readonly inbox: ParticipantInboxListener,
    private readonly relay: OutboxRelay,
    private readonly slots: ParallelSlots,
    private readonly retention: HistoryRetention,
    private readonly rollouts: RolloutSweep,
    private readonly nested: NestedSweep,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.supervision.stop();
    await this.rollouts.stop();
    await this.nested.stop();
    await this.retention.stop();
    await this.simulator.stop();
    if (this.bus instanceof InMemoryMessageBus) {
      await this.bus.whenDelivered();
    }
    await this.inbox.stop();
    await this.slots.stop();
    await this.relay.stop();
    await this.bus.close();
    await this.database.close();
  }
}

export interface RuntimeModuleOptions {
  readonly config: RuntimeConfig;
  readonly database: Database;
  readonly logger: PinoLogger;
}

/** The composition root: binds each port to its adapter from the configuration. */
@Module({})
export class RuntimeModule {
  static forRoot(options: RuntimeModuleOptions): DynamicModule {
    const unitOfWork = new TypeOrmUnitOfWork(options.database.dataSource);
    return {
      module: RuntimeModule,
      imports: [ScheduleModule.forRoot()],
      controllers: [...HTTP_CONTROLLERS],
      providers: [
        { provide: RUNTIME_CONFIG, useValue: options.config },
        { provide: DATABASE, useValue: options.database },
        { provide: TypeOrmUnitOfWork, useValue: unitOfWork },
        {
          provide: UnitOfWork,
          useFactory: (metrics: OperabilityMetrics, nudge: CommitNudge, dueTimes: DueTimeNudge) =>
            new ObservedUnitOfWork(
              unitOfWork,
              [metrics, new EventLog(options.logger), nudge, dueTimes],
              options.config.tracing === null ? null : new OperationTraces(),
            ),
          inject: [OperabilityMetrics, CommitNudge, DueTimeNudge],
        },
        {
          provide: OperationSessions,
          useFactory: (observed: UnitOfWork) => new BufferedSessions(observed),
          inject: [UnitOfWork],
        },
        {
          provide: ReadModels,
          useFactory: (observed: UnitOfWork) => new StoreReadModels(observed),
          inject: [UnitOfWork],
        },
        { provide: ROOT_LOGGER, useValue: options.logger },
        OperabilityMetrics,
        StorageMetrics,
        RolloutMetrics,
        { provide: Clock, useClass: SystemClock },
        { provide: IdGenerator, useClass: RandomIdGenerator },
        messageBusProvider,
        ShutdownSequence,
        RuntimeMetrics,
        EngineMetrics,
        TemplateReader,
        GraphService,
        PlanService,
        OrderPlanService,
        SensitiveValues,
        CommissioningService,
        InstanceProperties,
        DefinitionDocsService,
        InstantiationService,
        ControlService,
        GroupScalingService,
        ParticipantsService,
        HistoryService,
        AuditService,
        AccessRefusals,
        EffectWriter,
        OperationSteps,
        { provide: EventFeed, useValue: new TypeOrmEventFeed(options.database.dataSource) },
        { provide: SubscriptionStore, useValue: new TypeOrmSubscriptionStore(options.database.dataSource) },
        EventFeedFollower,
        SubscriptionsService,
        NotificationMetrics,
        NotificationDelivery,
        LiveEvents,
        OperationEngine,
        OperationSupervisor,
        OperationInterventions,
        CommitNudge,
        ParallelSlots,
        { provide: ObservationStore, useValue: new TypeOrmObservationStore(options.database.dataSource) },
        ObservationService,
        HealingService,
        ObservationMetrics,
        ParticipantProtocolService,
        AnswerGroupCommit,
        OutboxRelay,
        ParticipantInboxListener,
        DueTimeNudge,
        SupervisionTimer,
        SupervisionScheduler,
        { provide: RetentionStore, useValue: new TypeOrmRetentionStore(options.database.dataSource) },
        { provide: AuditLedger, useValue: new TypeOrmAuditLedger(options.database.dataSource) },
        HistoryRetention,
        { provide: RolloutStore, useValue: new TypeOrmRolloutStore(options.database.dataSource) },
        { provide: WindowStore, useValue: new TypeOrmWindowStore(options.database.dataSource) },
        { provide: CronCalendar, useValue: new CronLibraryCalendar() },
        WindowsService,
        InstanceOrders,
        ApprovalsService,
        { provide: ApprovalStore, useValue: new TypeOrmApprovalStore(options.database.dataSource) },
        RolloutService,
        RolloutSweep,
        NestedCompositions,
        NestedSweep,
        EmbeddedSimulator,
      ],
    };
  }
}
