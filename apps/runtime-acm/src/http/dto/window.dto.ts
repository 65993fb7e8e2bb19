import { WINDOW_KINDS, WINDOW_OUTSIDE } from '@acm/domain';
import type { WindowKind, WindowOutside } from '@acm/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { WindowView } from '../../application/windows.service';

export class WindowScopeDto {
  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'The window applies to instances of these compositions; absent or empty: of any composition',
  })
  compositionIds?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    description: 'The window applies to instances whose metadata has each key with this value; absent: any metadata',
    example: { site: 'prod' },
  })
  metadata?: Record<string, string | number | boolean>;
}

export class WindowRequestDto {
  @ApiProperty({ description: 'A unique name', example: 'weekend-nights', minLength: 1, maxLength: 200 })
  name!: string;

  @ApiProperty({
    description:
      'When the window opens: a cron expression (minute hour day-of-month month day-of-week, optionally seconds first), read in timeZone',
    example: '0 22 * * SAT,SUN',
  })
  cron!: string;

  @ApiProperty({
    oneOf: [
      { type: 'integer', minimum: 60 },
      { type: 'string', pattern: '^(\\d+d)?(\\d+h)?(\\d+m)?(\\d+s)?$' },
    ],
    description: 'How long it stays open: seconds, or "2h", "90m", "1h30m", "1d"; from 1 minute to 7 days',
    example: '4h',
  })
  duration!: number | string;

  @ApiPropertyOptional({ default: 'UTC', description: 'An IANA time zone', example: 'Europe/Paris' })
  timeZone?: string;

  @ApiPropertyOptional({
    enum: WINDOW_KINDS,
    default: 'allow',
    description: 'allow: orders go only while an allow window is open; deny: no order goes while it is open',
  })
  kind?: WindowKind;

  @ApiPropertyOptional({
    enum: WINDOW_OUTSIDE,
    default: 'wait',
    description:
      'What an order the window holds does: a rollout waits for the next opening either way; a single instance ' +
      'order is refused (409 with the next opening) either way, unless it gives ?override=<reason>',
  })
  outside?: WindowOutside;

  @ApiPropertyOptional({ type: WindowScopeDto, description: 'The instances it applies to; absent: every instance' })
  scope?: WindowScopeDto;
}

export class WindowScopeViewDto {
  @ApiProperty({ type: [String], format: 'uuid' })
  compositionIds!: string[];

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  metadata!: Record<string, string>;
}

export class WindowDto implements WindowView {
  @ApiProperty({ format: 'uuid' })
  windowId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ example: '0 22 * * SAT,SUN' })
  cron!: string;

  @ApiProperty({ type: 'integer', description: 'Seconds it stays open' })
  durationSeconds!: number;

  @ApiProperty({ example: 'Europe/Paris' })
  timeZone!: string;

  @ApiProperty({ enum: WINDOW_KINDS })
  kind!: WindowKind;

  @ApiProperty({ enum: WINDOW_OUTSIDE })
  outside!: WindowOutside;

  @ApiProperty({ type: WindowScopeViewDto })
  scope!: WindowScopeViewDto;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Whether it is open now' })
  openNow!: boolean;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Its next start after now; null when none within a year',
  })
  nextStart!: string | null;
}

export class WindowsDto {
  @ApiProperty({ type: [WindowDto] })
  windows!: WindowDto[];
}
