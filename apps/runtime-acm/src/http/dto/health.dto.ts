import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

const HEALTH_STATES = ['UP', 'DOWN'] as const;
type HealthState = (typeof HEALTH_STATES)[number];

/** The state of one part the runtime depends on (Spring actuator's shape, as ONAP answers). */
export class HealthComponent {
  @ApiProperty({ enum: HEALTH_STATES, enumName: 'HealthState' })
  status!: HealthState;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Why it is DOWN' })
  details?: Record<string, unknown>;
}

/** A probe's answer: UP or DOWN, with the parts it checked. */
@ApiExtraModels(HealthComponent)
export class Health {
  @ApiProperty({ enum: HEALTH_STATES, enumName: 'HealthState' })
  status!: HealthState;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(HealthComponent) },
    description: 'db and ping',
  })
  components?: Record<string, HealthComponent>;

  @ApiPropertyOptional({ example: '0.2.0', description: "Beyond ONAP: the runtime's own semantic version" })
  version?: string;

  @ApiPropertyOptional({ example: '1.0.0', description: 'Beyond ONAP: the ONAP CLAMP ACM API version it implements' })
  onapApiVersion?: string;
}
