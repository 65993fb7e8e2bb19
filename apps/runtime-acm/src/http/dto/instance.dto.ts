import { PendingApprovalDto } from './approval.dto';
import {
  DEPLOY_ORDERS,
  INSTANCE_ORDERS,
  DEPLOY_STATES,
  HEALTH_STATES,
  LOCK_ORDERS,
  LOCK_STATES,
  MIGRATION_STATES,
  STATE_CHANGE_RESULTS,
  SUB_ORDERS,
  SUB_STATES,
} from '@acm/domain';
import type {
  JsonObject,
  DeployOrder,
  DeployState,
  HealthState,
  InstanceOrder,
  LockOrder,
  LockState,
  MigrationState,
  StateChangeResult,
  SubOrder,
  SubState,
} from '@acm/domain';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { notOneOf } from '../validated-body';
import { excerpt } from '@acm/input-guards';
import type { InstantiationResponse as InstantiationAnswer } from '../../application/instantiation.service';
import type { ElementView, InstanceView, InstancesView } from '../../application/views';
import type { ElementHealthView, InstanceHealthView } from '../../application/observation.service';
import { ToscaConceptIdentifier } from './composition.dto';
import { EXAMPLE_INSTANCE_ID, INSTANTIATION_RESPONSE_EXAMPLE } from './examples';

const OPEN_MAP = { type: 'object', additionalProperties: true } as const;
/** Set by the runtime: shown in answers, ignored in a request body. */
const ANSWERED = { readOnly: true } as const;

/** One element of an instance (ONAP AutomationCompositionElement). */
export class AutomationCompositionElement implements ElementView {
  @ApiProperty({ format: 'uuid', description: 'The element id; the key of the elements map may be given instead' })
  id!: string;

  @ApiProperty({ type: ToscaConceptIdentifier, description: 'The element node template it instantiates' })
  definition!: ToscaConceptIdentifier;

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional({
    ...OPEN_MAP,
    description: "The element's properties; the definition's metadata.sensitive ones are masked in answers",
  })
  properties?: JsonObject;

  @ApiPropertyOptional({ ...ANSWERED, format: 'uuid' })
  participantId?: string;

  @ApiPropertyOptional({ ...ANSWERED, enum: DEPLOY_STATES, enumName: 'DeployState' })
  deployState?: DeployState;

  @ApiPropertyOptional({ ...ANSWERED, enum: LOCK_STATES, enumName: 'LockState' })
  lockState?: LockState;

  @ApiPropertyOptional({ ...ANSWERED, enum: SUB_STATES, enumName: 'SubState' })
  subState?: SubState;

  @ApiPropertyOptional({ ...ANSWERED, enum: MIGRATION_STATES, enumName: 'MigrationState' })
  migrationState?: MigrationState;

  @ApiPropertyOptional({ ...ANSWERED, type: 'integer' })
  stage?: number;

  @ApiPropertyOptional({ ...ANSWERED })
  operationalState?: string;

  @ApiPropertyOptional({ ...ANSWERED })
  useState?: string;

  @ApiPropertyOptional({ ...ANSWERED, description: "The participant's last message about the element" })
  message?: string;

  @ApiPropertyOptional({ ...ANSWERED, ...OPEN_MAP, description: 'What the participant reported' })
  outProperties?: JsonObject;
}

/** An instance of a composition definition (ONAP AutomationComposition). */
@ApiExtraModels(AutomationCompositionElement)
export class AutomationComposition implements InstanceView {
  @ApiProperty({ example: 'MinimalInstance' })
  name!: string;

  @ApiProperty({ example: '1.0.0' })
  version!: string;

  @ApiProperty({ format: 'uuid', description: 'Must be the compositionId of the path' })
  compositionId!: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Given in a POST, an update (or a migration with a target)' })
  instanceId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The definition to migrate to' })
  compositionTargetId?: string;

  @ApiPropertyOptional({ description: 'With compositionTargetId: only check the migration' })
  precheck?: boolean;

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional()
  derived_from?: string;

  @ApiPropertyOptional({ ...OPEN_MAP })
  metadata?: JsonObject;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(AutomationCompositionElement) },
    description: 'By element id',
  })
  elements!: Record<string, AutomationCompositionElement>;

  @ApiPropertyOptional({ ...ANSWERED, enum: DEPLOY_STATES, enumName: 'DeployState' })
  deployState?: DeployState;

  @ApiPropertyOptional({ ...ANSWERED, enum: LOCK_STATES, enumName: 'LockState' })
  lockState?: LockState;

  @ApiPropertyOptional({ ...ANSWERED, enum: SUB_STATES, enumName: 'SubState' })
  subState?: SubState;

  @ApiPropertyOptional({ ...ANSWERED, enum: STATE_CHANGE_RESULTS, enumName: 'StateChangeResult' })
  stateChangeResult?: StateChangeResult;

  @ApiPropertyOptional({ ...ANSWERED, type: 'integer', description: 'The start phase in progress' })
  phase?: number;

  @ApiPropertyOptional({ ...ANSWERED, example: '2026-12-01 11:30:15.123', description: 'UTC' })
  lastMsg?: string;

  @ApiPropertyOptional({ ...ANSWERED, format: 'uuid' })
  revisionId?: string;
}

/** An order the instance refuses in its current state, with the refusal its request would get. */
export class RefusedOrder {
  @ApiProperty({ enum: INSTANCE_ORDERS, enumName: 'InstanceOrder' })
  order!: InstanceOrder;

  @ApiProperty({
    example: 'Not valid order AcInstanceStateUpdate(deployOrder=NONE, lockOrder=LOCK, subOrder=NONE); ...',
  })
  reason!: string;
}

/** An instance as the runtime answers it: ONAP's fields and which orders its state accepts. */
export class AutomationCompositionView extends AutomationComposition {
  @ApiProperty({
    enum: INSTANCE_ORDERS,
    enumName: 'InstanceOrder',
    isArray: true,
    description: 'Beyond ONAP: the orders the current state accepts, by the checks each order request runs',
  })
  allowedOrders!: InstanceOrder[];

  @ApiProperty({ type: [RefusedOrder], description: 'Beyond ONAP: every other order, with the refusal it would get' })
  refusedOrders!: RefusedOrder[];

  @ApiPropertyOptional({ example: 'default', description: "Beyond ONAP: the project of the instance's definition" })
  project?: string;
}

/** The answer of the instance lists (ONAP AutomationCompositions). */
export class AutomationCompositions implements InstancesView {
  @ApiProperty({ type: [AutomationCompositionView] })
  automationCompositionList!: AutomationCompositionView[];
}

/** The answer of an instance create, update, migration or delete (ONAP InstantiationResponse). */
export class InstantiationResponse implements InstantiationAnswer {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_INSTANCE_ID })
  instanceId!: string;

  @ApiProperty({ type: ToscaConceptIdentifier, example: INSTANTIATION_RESPONSE_EXAMPLE.affectedAutomationComposition })
  affectedAutomationComposition!: ToscaConceptIdentifier;
}

/** The body of PUT .../instances/{instanceId}: one order at a time (ONAP AcInstanceStateUpdate). */
export class AcInstanceStateUpdate {
  @ApiPropertyOptional({ enum: DEPLOY_ORDERS, enumName: 'DeployOrder', description: 'Absent: NONE' })
  @IsOptional()
  @IsIn(DEPLOY_ORDERS, { message: notOneOf(DEPLOY_ORDERS) })
  deployOrder?: DeployOrder;

  @ApiPropertyOptional({ enum: LOCK_ORDERS, enumName: 'LockOrder', description: 'Absent: NONE' })
  @IsOptional()
  @IsIn(LOCK_ORDERS, { message: notOneOf(LOCK_ORDERS) })
  lockOrder?: LockOrder;

  @ApiPropertyOptional({ enum: SUB_ORDERS, enumName: 'SubOrder', description: 'Absent: NONE' })
  @IsOptional()
  @IsIn(SUB_ORDERS, { message: notOneOf(SUB_ORDERS) })
  subOrder?: SubOrder;

  @ApiPropertyOptional({
    type: 'boolean',
    description: 'Beyond ONAP: cancel the running operation and start this order from the current states',
  })
  @IsOptional()
  @IsBoolean({ message: ({ value }: { value: unknown }) => `supersede: must be true or false, got ${excerpt(value)}` })
  supersede?: boolean;
}

/** A problem the TOSCA reader found, with where it is. */
export class ToscaProblem {
  @ApiProperty({ example: 'elements["5e1f0000-0000-4000-8000-000000000e01"].properties.baseUrl' })
  path!: string;

  @ApiProperty({ description: 'The rule that was broken' })
  rule!: string;

  @ApiProperty()
  message!: string;

  @ApiPropertyOptional({ type: 'integer' })
  line?: number;

  @ApiPropertyOptional({ type: 'integer' })
  column?: number;
}

/** Beyond ONAP: the answer of POST .../instances?dryRun=true, what a creation would store. */
export class InstancePreview {
  @ApiProperty({ type: AutomationComposition })
  automationComposition!: AutomationComposition;

  @ApiProperty({ type: [ToscaProblem], description: 'Problems PROPERTY_VALIDATION=warn lets through' })
  propertyProblems!: ToscaProblem[];
}

/** Beyond ONAP: the control state of the running operation (ONAP clients ignore the field). */
export class RuntimeControl {
  @ApiProperty({ format: 'uuid' })
  operationId!: string;

  @ApiProperty({ example: 'DEPLOY' })
  order!: string;

  @ApiProperty({ description: 'Paused: nothing new is dispatched, the deadline stops' })
  paused!: boolean;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Epoch ms of the pause in progress' })
  pausedAt!: number | null;

  @ApiProperty({ type: 'integer', description: 'Resends of the open phase after MAX_WAIT_MS of silence' })
  resent!: number;

  @ApiProperty({ type: 'integer', description: 'Retry attempts of failed elements (retryPolicy)' })
  retried!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Epoch ms of the next scheduled retry' })
  retryAt!: number | null;

  @ApiProperty({
    type: [String],
    description: 'Elements reported with no progress for noProgressTimeoutMs since the last progress (not failed)',
  })
  noProgress!: string[];
}

/** One observed element's health and drift. */
export class ElementHealth implements ElementHealthView {
  @ApiProperty({ enum: HEALTH_STATES })
  health!: HealthState;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why, as the participant reported it' })
  reason!: string | null;

  @ApiProperty({ format: 'date-time', description: 'When the element entered this health state' })
  since!: string;

  @ApiProperty({
    type: [String],
    description: 'JSON pointers of the desired properties that differ from the observed ones (drift warn or correct)',
  })
  drift!: string[];
}

/** The health participants observed of an instance's elements. */
export class ObservedHealth implements InstanceHealthView {
  @ApiProperty({ enum: HEALTH_STATES, description: 'The worst state of the elements (Unknown: never observed)' })
  health!: HealthState;

  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(ElementHealth) } })
  elements!: Record<string, ElementHealth>;
}

/** GET of one instance: ONAP's fields and, while an operation runs, its control state. */
@ApiExtraModels(ElementHealth)
export class AutomationCompositionWithControl extends AutomationCompositionView {
  @ApiPropertyOptional({ type: RuntimeControl, description: 'Beyond ONAP: present while an operation runs' })
  runtimeControl?: RuntimeControl;

  @ApiPropertyOptional({
    type: ObservedHealth,
    description: 'Beyond ONAP: the health and drift participants observed, once one reported an observation',
  })
  observedHealth?: ObservedHealth;
  @ApiPropertyOptional({
    type: PendingApprovalDto,
    description: 'Beyond ONAP: the order waiting for approvals (an approval rule of RUNTIME_POLICY_FILE holds it)',
  })
  pendingApproval?: PendingApprovalDto;
}
