import { ApiProperty } from '@nestjs/swagger';

/** ONAP's error answer (SimpleResponse): every refusal, whatever its status, carries this one field. */
export class SimpleResponse {
  @ApiProperty({
    description: 'What was refused and why; a validation refusal names each field and the rule it broke, one per line',
    example: 'compositionId: must be a UUID, got "not-a-uuid"',
  })
  errorDetails!: string;
}
