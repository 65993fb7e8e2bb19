import { DomainError } from '@acm/domain';
import type { SelectQueryBuilder } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

export const UNIQUE_VIOLATION = '23505';

/** TypeORM's deep-partial insert type rejects JSON columns typed as records; the row itself is complete. */
export function asInsertable<T>(row: T): QueryDeepPartialEntity<T> {
  return row as QueryDeepPartialEntity<T>;
}

export function pgErrorOf(error: unknown): { code?: string; constraint?: string } {
  const driverError = (error as { driverError?: unknown }).driverError ?? error;
  return driverError as { code?: string; constraint?: string };
}

export function concurrentChange(kind: string, id: string): DomainError {
  return new DomainError(
    'CONCURRENT_MODIFICATION',
    `${kind} ${id} was changed by another request while this one was being applied; read it again and retry`,
    { id },
  );
}

export function paged<T extends object>(
  query: SelectQueryBuilder<T>,
  page?: number,
  size?: number,
): SelectQueryBuilder<T> {
  if (page !== undefined && size !== undefined) {
    return query.skip(page * size).take(size);
  }
  return query;
}
