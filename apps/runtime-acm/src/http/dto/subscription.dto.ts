import { HISTORY_EVENT_KINDS, SUBSCRIPTION_FORMATS } from '@acm/domain';
import type { HistoryEventKind, SubscriptionFilter, SubscriptionFormat } from '@acm/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { DeliveryView, SubscriptionTestView, SubscriptionView } from '../../application/subscriptions.service';

export class SubscriptionFilterDto implements SubscriptionFilter {
  @ApiPropertyOptional({
    type: [String],
    enum: HISTORY_EVENT_KINDS,
    description: 'History event kinds to receive (none: every kind)',
  })
  kinds?: HistoryEventKind[];

  @ApiPropertyOptional({ format: 'uuid', description: "Only this definition's events and its instances' events" })
  compositionId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "Only this instance's events" })
  instanceId?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    description:
      'Only events of instances whose metadata has each key with this value (compared as text; answered as text); ' +
      "a definition's events never match",
    example: { site: 'prod' },
  })
  metadata?: Record<string, string>;
}

export class SubscriptionRequestDto {
  @ApiProperty({ example: 'https://hooks.example.com/acm', description: 'The http or https URL events are posted to' })
  url!: string;

  @ApiPropertyOptional({ type: SubscriptionFilterDto })
  filter?: SubscriptionFilterDto;

  @ApiPropertyOptional({ enum: SUBSCRIPTION_FORMATS, default: 'cloudevents' })
  format?: SubscriptionFormat;

  @ApiPropertyOptional({
    writeOnly: true,
    description: 'HMAC-SHA256 key: each delivery carries X-Acm-Signature: sha256=<hex of the raw body>; never shown',
  })
  secret?: string;
}

export class DeadLetterDto {
  @ApiProperty({ description: 'The id of the event given up' })
  eventId!: string;

  @ApiProperty()
  error!: string;

  @ApiProperty({ format: 'date-time' })
  at!: string;
}

export class DeliveryDto implements DeliveryView {
  @ApiProperty({ enum: ['ACTIVE', 'RETRYING'] })
  state!: 'ACTIVE' | 'RETRYING';

  @ApiProperty({ type: 'integer', description: 'The feed position up to which events were delivered or given up' })
  position!: number;

  @ApiProperty({ type: 'integer' })
  delivered!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastDeliveredAt!: string | null;

  @ApiProperty({ type: 'integer', description: 'Failed attempts at the next event' })
  attempts!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  nextAttemptAt!: string | null;

  @ApiProperty({ type: String, nullable: true })
  lastError!: string | null;

  @ApiProperty({ type: 'integer', description: 'Events given up after NOTIFY_MAX_ATTEMPTS failed attempts' })
  deadLetters!: number;

  @ApiProperty({ type: DeadLetterDto, nullable: true })
  lastDeadLetter!: DeadLetterDto | null;
}

export class SubscriptionDto implements SubscriptionView {
  @ApiProperty({ format: 'uuid' })
  subscriptionId!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({ type: SubscriptionFilterDto })
  filter!: SubscriptionFilterDto;

  @ApiProperty({ enum: SUBSCRIPTION_FORMATS })
  format!: SubscriptionFormat;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Whether deliveries are signed (the secret is never shown)' })
  signed!: boolean;

  @ApiProperty({ type: DeliveryDto })
  delivery!: DeliveryDto;
}

export class SubscriptionsDto {
  @ApiProperty({ type: [SubscriptionDto] })
  subscriptions!: SubscriptionDto[];
}

export class SubscriptionTestDto implements SubscriptionTestView {
  @ApiProperty()
  delivered!: boolean;

  @ApiPropertyOptional({ type: 'integer', description: "The receiver's status when it answered" })
  status?: number;

  @ApiPropertyOptional()
  error?: string;
}
