import type { Type } from '@nestjs/common';
import { ApprovalsController } from './approvals.controller';
import { AuditController } from './audit.controller';
import { CompositionsController } from './compositions.controller';
import { ConsoleController } from './console.controller';
import { ControlController } from './control.controller';
import { EventsController } from './events.controller';
import { GraphController } from './graph.controller';
import { GroupsController } from './groups.controller';
import { HealthController } from './health.controller';
import { HistoryController, RuntimeHistoryController } from './history.controller';
import { CompositionInstancesController, InstancesController } from './instances.controller';
import { ParticipantsController } from './participants.controller';
import { PlanController } from './plan.controller';
import { RolloutsController } from './rollouts.controller';
import { SubscriptionsController } from './subscriptions.controller';
import { WindowsController } from './windows.controller';

/**
 * Every REST controller of the runtime. The runtime module serves them and the OpenAPI document describes them, so
 * a route added here is served and documented at once (docs/architecture.md, "Adding a route").
 */
export const HTTP_CONTROLLERS: readonly Type[] = [
  CompositionsController,
  CompositionInstancesController,
  InstancesController,
  ParticipantsController,
  HealthController,
  HistoryController,
  RuntimeHistoryController,
  GraphController,
  PlanController,
  EventsController,
  ControlController,
  AuditController,
  RolloutsController,
  SubscriptionsController,
  GroupsController,
  WindowsController,
  ConsoleController,
  ApprovalsController,
];
