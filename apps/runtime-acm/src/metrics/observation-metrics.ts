import { HEALTH_STATES, ObservationStore } from '@acm/domain';
import { Injectable, Logger } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { RuntimeMetrics } from './runtime-metrics';

/**
 * Observed elements by health (`acm_observed_elements{health}`), read from the table at each scrape, so every replica
 * reports the whole picture. Elements never observed are not counted (their health is Unknown by definition).
 */
@Injectable()
export class ObservationMetrics {
  private readonly logger = new Logger('Metrics');

  constructor(runtime: RuntimeMetrics, observations: ObservationStore) {
    const logger = this.logger;
    new Gauge({
      name: 'acm_observed_elements',
      help: 'Deployed elements a participant reported an observation of, by health',
      labelNames: ['health'],
      registers: [runtime.registry],
      async collect() {
        try {
          const counts = await observations.countByHealth();
          this.reset();
          HEALTH_STATES.forEach((health) => this.set({ health }, counts[health]));
        } catch (error) {
          logger.warn(`Could not read the observed elements: ${(error as Error).message}`);
        }
      },
    });
  }
}
