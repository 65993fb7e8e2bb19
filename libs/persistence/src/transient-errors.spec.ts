import { isTransientDatabaseError } from './transient-errors';

/** An Error with the extra fields node-postgres and TypeORM attach. */
function failure(message: string, fields: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), fields);
}

describe('isTransientDatabaseError', () => {
  it.each([
    ['connection exception (class 08)', failure('connection failure', { code: '08006' })],
    ['admin shutdown', failure('terminating connection due to administrator command', { code: '57P01' })],
    ['crash shutdown', failure('crash', { code: '57P02' })],
    ['server starting', failure('the database system is starting up', { code: '57P03' })],
    ['serialization failure', failure('could not serialize access', { code: '40001' })],
    ['deadlock', failure('deadlock detected', { code: '40P01' })],
    ['a full disk', failure('could not extend file: No space left on device', { code: '53100' })],
    ['a server out of memory', failure('out of memory', { code: '53200' })],
    ['no connection slot', failure('sorry, too many clients already', { code: '53300' })],
    ['a statement past statement_timeout', failure('canceling statement due to statement timeout', { code: '57014' })],
    [
      'a session ended idle in a transaction',
      failure('terminating connection due to idle-in-transaction timeout', { code: '25P03' }),
    ],
    ['a silent server past query_timeout', new Error('Query read timeout')],
    ['TypeORM wrapping a driver error', failure('query failed', { driverError: failure('x', { code: '40001' }) })],
    ['a cause chain', failure('outer', { cause: failure('inner', { code: 'ECONNRESET' }) })],
    ['every address refused', new AggregateError([failure('a', { code: 'ECONNREFUSED' })], 'connect failed')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a data source closed while the process stops', failure('Driver not Connected', { name: 'TypeORMError' })],
    [
      'a prepared statement whose result type changed',
      failure('cached plan must not change result type', { code: '0A000' }),
    ],
    [
      'the same from a server speaking another language',
      failure('le plan en cache ne doit pas modifier le type en résultat', {
        code: '0A000',
        routine: 'RevalidateCachedQuery',
      }),
    ],
  ])('is transient for %s', (_name, error) => {
    expect(isTransientDatabaseError(error)).toBe(true);
  });

  it.each([
    ['unique violation', failure('duplicate key', { code: '23505' })],
    ['syntax error', failure('syntax error', { code: '42601' })],
    ['another feature not supported', failure('FOR UPDATE cannot be applied to a window', { code: '0A000' })],
    ['a plain error', new Error('element not found')],
    ['a string', 'boom'],
    ['undefined', undefined],
  ])('is permanent for %s', (_name, error) => {
    expect(isTransientDatabaseError(error)).toBe(false);
  });
});
