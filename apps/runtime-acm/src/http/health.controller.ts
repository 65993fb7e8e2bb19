import { UnitOfWork } from '@acm/domain';
import { MessageBus } from '@acm/messaging';
import { TypeOrmUnitOfWork } from '@acm/persistence';
import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { ONAP_API_VERSION, productVersion } from '../config/product-version';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { Health } from './dto/health.dto';
import { ApiController, TAGS } from './openapi';

/** ONAP's actuator endpoints, at the same paths, plus /metrics for Prometheus defaults. */
@ApiController(TAGS.actuator)
@Controller()
export class HealthController {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly bus: MessageBus,
    private readonly metrics: RuntimeMetrics,
    private readonly store: TypeOrmUnitOfWork,
  ) {}

  /**
   * The database and the bus, each UP or DOWN with the reason (the reason only behind credentials). The database is
   * DOWN while it answers but refuses writes (disk full and the like), until a write succeeds again.
   */
  private async components(): Promise<{ db: Component; kafka: Component }> {
    const [db, kafka] = await Promise.all([component(this.unitOfWork.ping()), component(this.bus.ping())]);
    const writes = this.store.storage.current;
    if (db.status === 'UP' && writes !== null) {
      return { db: { status: 'DOWN', details: { error: writes.message } }, kafka };
    }
    return { db, kafka };
  }

  @Get(['actuator/health', 'health'])
  @ApiOperation({
    operationId: 'health',
    summary: 'Health: UP when the database and the message bus answer, with the reason of a DOWN',
  })
  @ApiOkResponse({ type: Health, description: 'UP' })
  @ApiServiceUnavailableResponse({ type: Health, description: 'DOWN: the database or the message bus does not answer' })
  async health(@Res({ passthrough: true }) response: Response): Promise<Health> {
    const { db, kafka } = await this.components();
    const status = db.status === 'UP' && kafka.status === 'UP' ? 'UP' : 'DOWN';
    response.status(status === 'UP' ? 200 : 503);
    return {
      status,
      components: { db, kafka, ping: { status: 'UP' } },
      version: productVersion(),
      onapApiVersion: ONAP_API_VERSION,
    };
  }

  @Get('actuator/health/liveness')
  @ApiOperation({ operationId: 'liveness', summary: 'Liveness: the process answers (no credentials needed)' })
  @ApiOkResponse({ type: Health, description: 'UP' })
  liveness(): Health {
    return { status: 'UP' };
  }

  /** Open to probes without credentials, so it says UP or DOWN and nothing else. */
  @Get('actuator/health/readiness')
  @ApiOperation({
    operationId: 'readiness',
    summary: 'Readiness: the database and the message bus answer (no credentials needed)',
  })
  @ApiOkResponse({ type: Health, description: 'UP' })
  @ApiServiceUnavailableResponse({ type: Health, description: 'DOWN: the database or the message bus does not answer' })
  async readiness(@Res({ passthrough: true }) response: Response): Promise<Health> {
    const { db, kafka } = await this.components();
    const status = db.status === 'UP' && kafka.status === 'UP' ? 'UP' : 'DOWN';
    response.status(status === 'UP' ? 200 : 503);
    return { status };
  }

  @Get(['actuator/prometheus', 'metrics'])
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiExcludeEndpoint()
  async prometheus(@Res() response: Response): Promise<void> {
    response.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}

interface Component {
  status: 'UP' | 'DOWN';
  details?: { error: string };
}

function component(ping: Promise<void>): Promise<Component> {
  return ping.then(
    (): Component => ({ status: 'UP' }),
    (error: unknown): Component => ({
      status: 'DOWN',
      details: { error: error instanceof Error ? error.message : String(error) },
    }),
  );
}
