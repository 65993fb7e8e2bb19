import { UnitOfWork } from '@acm/domain';
import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RuntimeMetrics } from '../metrics/runtime-metrics';

/** ONAP's actuator endpoints, at the same paths, plus /metrics for Prometheus defaults. */
@ApiTags('Actuator')
@ApiBasicAuth()
@Controller()
export class HealthController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly metrics: RuntimeMetrics,
  ) {}

  @Get(['actuator/health', 'health'])
  @ApiOperation({ summary: 'Health: UP when the database answers' })
  async health(@Res({ passthrough: true }) response: Response): Promise<unknown> {
    const db = await this.unitOfWork.ping().then(
      () => ({ status: 'UP' }),
      (error: unknown) => ({
        status: 'DOWN',
        details: { error: error instanceof Error ? error.message : String(error) },
      }),
    );
    const status = db.status;
    response.status(status === 'UP' ? 200 : 503);
    return { status, components: { db, ping: { status: 'UP' } } };
  }

  @Get('actuator/health/liveness')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  liveness(): unknown {
    return { status: 'UP' };
  }

  @Get('actuator/health/readiness')
  @ApiOperation({ summary: 'Readiness: the database answers' })
  readiness(@Res({ passthrough: true }) response: Response): Promise<unknown> {
    return this.health(response);
  }

  @Get(['actuator/prometheus', 'metrics'])
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiExcludeEndpoint()
  async prometheus(@Res() response: Response): Promise<void> {
    response.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
