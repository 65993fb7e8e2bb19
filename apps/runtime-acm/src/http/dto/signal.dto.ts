import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A signal for a wait condition (Heat's WaitConditionHandle signal). */
export class SignalBodyDto {
  @ApiProperty({ enum: ['SUCCESS', 'FAILURE'] })
  status!: 'SUCCESS' | 'FAILURE';

  @ApiProperty({
    description: 'Idempotency key: a signal with an id already seen answers 200 and changes nothing',
    example: 'approval-1',
    pattern: '^[A-Za-z0-9._:-]{1,200}$',
  })
  id!: string;

  @ApiPropertyOptional({ description: 'Why (kept in the history and the element message)', maxLength: 1000 })
  reason?: string;
}

/** What a signal did. */
export class SignalAnswerDto {
  @ApiProperty({ format: 'uuid' })
  elementId!: string;

  @ApiProperty()
  id!: string;

  @ApiProperty({ enum: ['SUCCESS', 'FAILURE'] })
  status!: 'SUCCESS' | 'FAILURE';

  @ApiProperty({ enum: ['COUNTED', 'COMPLETED', 'FAILED', 'DUPLICATE'] })
  effect!: 'COUNTED' | 'COMPLETED' | 'FAILED' | 'DUPLICATE';

  @ApiProperty({ example: 'DEPLOYING', description: "The element's deploy state after the signal" })
  deployState!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'SUCCESS signals counted so far' })
  successes!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'SUCCESS signals the wait needs' })
  count!: number | null;
}

/** A signed signal URL. */
export class SignalUrlDto {
  @ApiProperty({ description: 'POST a signal body here, without credentials' })
  url!: string;

  @ApiProperty({ description: '<expiry in epoch seconds>.<HMAC-SHA256, base64url>' })
  token!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}
