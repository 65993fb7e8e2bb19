import { DomainError } from '@acm/domain';
import { parseAuditFilter } from './audit-query';

const refusal = (query: Record<string, unknown>): string => {
  try {
    parseAuditFilter(query);
  } catch (error) {
    if (error instanceof DomainError) {
      return `${error.code} ${error.message}`;
    }
    throw error;
  }
  throw new Error('accepted');
};

describe('parseAuditFilter', () => {
  it('reads every filter, splitting actions into event kinds and orders', () => {
    const id = '3f1e0d2c-1b4a-4c5d-8e6f-7a8b9c0d1e2f';
    expect(
      parseAuditFilter({
        actor: 'alice',
        action: 'ORDERED, DEPLOY,FAILED,PRIME',
        instanceId: id.toUpperCase(),
        compositionId: id,
        from: '2026-12-01',
        to: '2026-12-01T12:30:00+01:00',
      }),
    ).toEqual({
      actor: 'alice',
      kinds: ['ORDERED', 'FAILED'],
      orders: ['DEPLOY', 'PRIME'],
      instanceId: id,
      compositionId: id,
      from: Date.UTC(2026, 11, 1),
      to: Date.UTC(2026, 11, 1, 11, 30),
    });
    expect(parseAuditFilter({})).toEqual({});
  });

  it.each([
    [{ from: '2026-12-01T10:00:00' }, 'from: must be an ISO-8601 time with a zone'],
    [{ to: '2026-02-30T10:00:00Z' }, 'to: must be an ISO-8601 time'],
    [{ from: 'yesterday' }, 'from: must be an ISO-8601 time'],
    [{ from: '2026-12-01T10:00:00Z', to: '2026-12-01T10:00:00Z' }, 'from: must be before to'],
    [{ action: 'DEPLOY,NOPE' }, 'action: "NOPE" is neither an event kind'],
    [{ actor: '' }, 'actor: must be a user or client name of 1 to 256 characters'],
    [{ actor: 'x'.repeat(257) }, 'actor: must be a user or client name'],
    [{ actor: ['a', 'b'] }, 'actor: must be given once'],
    [{ compositionId: 'x' }, 'compositionId: must be a UUID'],
  ])('refuses %j: %s', (query, message) => {
    expect(refusal(query)).toContain(`VALIDATION_FAILED ${message}`);
  });
});
