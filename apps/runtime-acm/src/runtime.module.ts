import { Clock, IdGenerator, UnitOfWork } from '@acm/domain';
import { RandomIdGenerator, SystemClock, TypeOrmUnitOfWork } from '@acm/persistence';
import type { DynamicModule, OnApplicationShutdown } from '@nestjs/common';
import { Inject, Injectable, Module } from '@nestjs/common';
import { CommissioningService } from './application/commissioning.service';
import { InstantiationService } from './application/instantiation.service';
import { ParticipantsService } from './application/participants.service';
import { TemplateReader } from './application/template-reader';
import { RUNTIME_CONFIG } from './config/runtime.config';
import type { RuntimeConfig } from './config/runtime.config';
import type { Database } from './database/database';
import { CompositionsController } from './http/compositions.controller';
import { HealthController } from './http/health.controller';
import { RuntimeMetrics } from './http/http-metrics';
import { CompositionInstancesController, InstancesController } from './http/instances.controller';
import { ParticipantsController } from './http/participants.controller';

export const DATABASE = Symbol('DATABASE');

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}

export interface RuntimeModuleOptions {
  readonly config: RuntimeConfig;
  readonly database: Database;
}

/** The composition root: binds each port to its adapter from the configuration. */
@Module({})
export class RuntimeModule {
  static forRoot(options: RuntimeModuleOptions): DynamicModule {
    return {
      module: RuntimeModule,
      controllers: [
        CompositionsController,
        CompositionInstancesController,
        InstancesController,
        ParticipantsController,
        HealthController,
      ],
      providers: [
        { provide: RUNTIME_CONFIG, useValue: options.config },
        { provide: DATABASE, useValue: options.database },
        { provide: UnitOfWork, useValue: new TypeOrmUnitOfWork(options.database.dataSource) },
        { provide: Clock, useClass: SystemClock },
        { provide: IdGenerator, useClass: RandomIdGenerator },
        RuntimeMetrics,
        DatabaseCloser,
        TemplateReader,
        CommissioningService,
        InstantiationService,
        ParticipantsService,
      ],
    };
  }
}
