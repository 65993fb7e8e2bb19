import { UnitOfWork } from '@acm/domain';
import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { Health } from './dto/health.dto';
import { ApiController, TAGS } from './openapi';

/** ONAP's actuator endpoints, at the same paths, plus /metrics for Prometheus defaults. */
@ApiController(TAGS.actuator)
@Controller()
export class HealthController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly metrics: RuntimeMetrics,
  ) {}

  @Get(['actuator/health', 'health'])
  @ApiOperation({ operationId: 'health', summary: 'Health: UP when the database answers' })
  @ApiOkResponse({ type: Health, description: 'UP' })
  @ApiServiceUnavailableResponse({ type: Health, description: 'DOWN: the database does not answer' })
  async health(@Res({ passthrough: true }) response: Response): Promise<Health> {
    const db = await this.unitOfWork.ping().then(
      () => ({ status: 'UP' as const }),
      (error: unknown) => ({
        status: 'DOWN' as const,
        details: { error: error instanceof Error ? error.message : String(error) },
      }),
    );
    const status = db.status;
    response.status(status === 'UP' ? 200 : 503);
    return { status, components: { db, ping: { status: 'UP' } } };
  }

  @Get('actuator/health/liveness')
  @ApiOperation({ operationId: 'liveness', summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: Health, description: 'UP' })
  liveness(): Health {
    return { status: 'UP' };
  }

  @Get('actuator/health/readiness')
  @ApiOperation({ operationId: 'readiness', summary: 'Readiness: the database answers' })
  @ApiOkResponse({ type: Health, description: 'UP' })
  @ApiServiceUnavailableResponse({ type: Health, description: 'DOWN: the database does not answer' })
  readiness(@Res({ passthrough: true }) response: Response): Promise<Health> {
    return this.health(response);
  }

  @Get(['actuator/prometheus', 'metrics'])
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiExcludeEndpoint()
  async prometheus(@Res() response: Response): Promise<void> {
    response.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
