import { randomUUID } from 'node:crypto';

import type { PendingApproval } from '@acm/domain';
import { TypeOrmApprovalStore, createDataSource, migrate } from '@acm/persistence';
import type { DataSource } from 'typeorm';

import { testDatabaseUrl } from '../../../test/support/services';

let clock = 1_765_000_000_000;

function anApproval(instanceId: string, project = 'prod'): PendingApproval {
  clock += 1_000;
  return {
    approvalId: randomUUID(),
    project,
    compositionId: randomUUID(),
    instanceId,
    order: 'DEPLOY',
    request: { kind: 'STATE', deployOrder: 'DEPLOY' },
    orderedBy: 'alice',
    orderedAt: clock,
    required: 2,
    role: 'approver',
    approvals: [],
    expiresAt: clock + 3_600_000,
    state: 'PENDING',
    closedBy: null,
    closedAt: null,
    reason: null,
    version: 0,
  };
}

describe('TypeOrmApprovalStore (PostgreSQL)', () => {
  const schema = `approval_store_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  let dataSource: DataSource;
  let store: TypeOrmApprovalStore;

  beforeAll(async () => {
    dataSource = createDataSource({ url: testDatabaseUrl(), schema, poolSize: 2 });
    await dataSource.initialize();
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await migrate(dataSource);
    store = new TypeOrmApprovalStore(dataSource);
  }, 60_000);

  afterAll(async () => {
    await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
    await dataSource.destroy();
  });

  it('keeps one PENDING approval per instance, and takes a new one once it is closed', async () => {
    const instanceId = randomUUID();
    const first = anApproval(instanceId);
    expect(await store.create(first)).toBe(true);
    expect(await store.create(anApproval(instanceId))).toBe(false);
    expect(await store.pendingOf(instanceId)).toEqual(first);
    expect(await store.update({ ...first, state: 'REJECTED', reason: 'no', version: 1 })).toBe(true);
    expect(await store.pendingOf(instanceId)).toBeNull();
    const second = anApproval(instanceId);
    expect(await store.create(second)).toBe(true);
    expect(await store.find(first.approvalId)).toMatchObject({ state: 'REJECTED', reason: 'no', version: 1 });
  });

  it('writes a change only over the version it was made from', async () => {
    const approval = anApproval(randomUUID());
    await store.create(approval);
    const carol = { ...approval, approvals: [{ by: 'carol', at: clock }], version: 1 };
    const dave = { ...approval, approvals: [{ by: 'dave', at: clock }], version: 1 };
    expect(await store.update(carol)).toBe(true);
    expect(await store.update(dave)).toBe(false);
    expect((await store.find(approval.approvalId))?.approvals).toEqual([{ by: 'carol', at: clock }]);
  });

  it('lists newest first, by project, and only the pending ones when asked', async () => {
    const older = anApproval(randomUUID(), 'team-x');
    const newer = anApproval(randomUUID(), 'team-x');
    const elsewhere = anApproval(randomUUID(), 'team-y');
    for (const approval of [older, newer, elsewhere]) {
      await store.create(approval);
    }
    await store.update({ ...older, state: 'EXPIRED', version: 1 });
    const ids = (approvals: PendingApproval[]) => approvals.map((approval) => approval.approvalId);
    expect(ids(await store.list({ projects: ['team-x'], pendingOnly: false, limit: 10 }))).toEqual([
      newer.approvalId,
      older.approvalId,
    ]);
    expect(ids(await store.list({ projects: ['team-x'], pendingOnly: true, limit: 10 }))).toEqual([newer.approvalId]);
    expect(ids(await store.list({ pendingOnly: false, limit: 1 }))).toEqual([elsewhere.approvalId]);
    expect(await store.list({ projects: [], pendingOnly: false, limit: 10 })).toEqual([]);
  });
});
