import { TypeOrmUnitOfWork } from '@acm/persistence';
import { Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { RuntimeMetrics } from './runtime-metrics';

/**
 * Counts the writes the database refused for lack of a resource (disk full, out of memory, no connection slot), and
 * logs when writes stop and start working again: one line each way, however many writes fail in between.
 */
@Injectable()
export class StorageMetrics {
  private readonly logger = new Logger('Database');

  constructor(runtime: RuntimeMetrics, unitOfWork: TypeOrmUnitOfWork) {
    const failures = new Counter({
      name: 'acm_storage_write_failures_total',
      help: 'Writes the database refused for lack of a resource (SQLSTATE class 53), by cause',
      labelNames: ['cause'],
      registers: [runtime.registry],
    });
    let failing = false;
    unitOfWork.storage.onFailure((failure) => {
      failures.inc({ cause: failure.cause });
      if (!failing) {
        failing = true;
        this.logger.error(`Writes fail: ${failure.message}; readiness is DOWN until a write succeeds`);
      }
    });
    unitOfWork.storage.onRecovered(() => {
      failing = false;
      this.logger.log('Writes succeed again; readiness is UP');
    });
  }
}
