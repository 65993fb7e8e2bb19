import { Clock, IdGenerator, UnitOfWork } from '@acm/domain';
import type { Store } from '@acm/domain';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AutomationCompositionElementEntity } from './entities/automation-composition-element.entity';
import { AutomationCompositionEntity } from './entities/automation-composition.entity';
import { CompositionDefinitionEntity } from './entities/composition-definition.entity';
import {
  ParticipantEntity,
  ParticipantReplicaEntity,
  ParticipantSupportedElementEntity,
} from './entities/participant.entity';
import { InitialSchema1764480000000 } from './migrations/1764480000000-InitialSchema';
import { TypeOrmStore } from './typeorm-store';

export const ENTITIES = [
  CompositionDefinitionEntity,
  AutomationCompositionEntity,
  AutomationCompositionElementEntity,
  ParticipantEntity,
  ParticipantSupportedElementEntity,
  ParticipantReplicaEntity,
];

/** Every migration in order; the schema is never synchronised from the entities. */
export const MIGRATIONS = [InitialSchema1764480000000];

export interface DatabaseOptions {
  readonly url: string;
  /** Connections in the pool. */
  readonly poolSize?: number;
  /** Schema to use instead of public (tests run each suite in a schema of its own). */
  readonly schema?: string;
}

export function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'acm_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    poolSize: options.poolSize ?? 10,
    extra: options.schema ? { options: `-c search_path=${options.schema}` } : {},
  });
}

/** Arbitrary key for pg_advisory_lock, so replicas starting together migrate one at a time. */
const MIGRATION_LOCK_KEY = 0x41434d; // "ACM"

/** Runs pending migrations under an advisory lock; safe when several replicas start at once. */
export async function migrate(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await dataSource.runMigrations({ transaction: 'all' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    await runner.release();
  }
}

export class TypeOrmUnitOfWork extends UnitOfWork {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  override transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new TypeOrmStore(manager)));
  }

  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return work(new TypeOrmStore(this.dataSource.manager));
  }

  override async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}

export class SystemClock extends Clock {
  override now(): number {
    return Date.now();
  }
}

export class RandomIdGenerator extends IdGenerator {
  override uuid(): string {
    return randomUUID();
  }
}
