import { ApiProperty } from '@nestjs/swagger';

export class ScaleUrlDto {
  @ApiProperty({ description: 'POST here, without credentials, to scale the group by its policy' })
  url!: string;

  @ApiProperty({ description: '<expiry in epoch seconds>.<HMAC-SHA256, base64url>' })
  token!: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt!: string;
}

export class ScaleAnswerDto {
  @ApiProperty({ description: "The group's node template name" })
  group!: string;

  @ApiProperty({ enum: ['SCALED', 'UNCHANGED'], description: 'SCALED: an UPDATE of the instance started' })
  effect!: string;

  @ApiProperty({ description: 'The count before the call' })
  from!: number;

  @ApiProperty({ description: 'The count the UPDATE gives the group' })
  to!: number;
}
