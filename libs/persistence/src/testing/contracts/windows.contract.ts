/**
 * The contract of the `WindowStore` port, run against the in-memory twin (unit project) and PostgreSQL (integration
 * project). Tests share one store per adapter and use fresh ids and names.
 */
import { randomUUID } from 'node:crypto';

import type { MaintenanceWindow, WindowStore } from '@acm/domain';

export interface WindowContractFixture {
  readonly windows: WindowStore;
  close(): Promise<void>;
}

let clock = 1_765_000_000_000;

function aWindow(name: string = randomUUID()): MaintenanceWindow {
  clock += 1_000;
  return {
    windowId: randomUUID(),
    name,
    cron: '0 2 * * SAT',
    durationMs: 7_200_000,
    timeZone: 'Europe/Paris',
    kind: 'allow',
    outside: 'refuse',
    scope: { compositionIds: [randomUUID()], metadata: { site: 'prod' } },
    createdAt: clock,
  };
}

export function describeWindowContract(name: string, open: () => Promise<WindowContractFixture>): void {
  describe(`WindowStore contract: ${name}`, () => {
    let fixture: WindowContractFixture;
    let store: WindowStore;

    beforeAll(async () => {
      fixture = await open();
      store = fixture.windows;
    }, 60_000);

    afterAll(async () => {
      await fixture.close();
    });

    it('keeps what it was given and lists oldest first', async () => {
      const first = aWindow();
      const second = aWindow();
      expect(await store.create(first)).toBe(true);
      expect(await store.create(second)).toBe(true);
      expect(await store.find(first.windowId)).toEqual(first);
      const ids = (await store.list()).map((window) => window.windowId);
      expect(ids.indexOf(first.windowId)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(first.windowId)).toBeLessThan(ids.indexOf(second.windowId));
    });

    it('refuses a second window of the same name, writing nothing', async () => {
      const first = aWindow();
      const twin = aWindow(first.name);
      expect(await store.create(first)).toBe(true);
      expect(await store.create(twin)).toBe(false);
      expect(await store.find(twin.windowId)).toBeNull();
    });

    it('answers null for an unknown id, and deletes once', async () => {
      const window = aWindow();
      await store.create(window);
      expect(await store.find(randomUUID())).toBeNull();
      expect(await store.delete(window.windowId)).toBe(true);
      expect(await store.delete(window.windowId)).toBe(false);
      expect(await store.find(window.windowId)).toBeNull();
    });
  });
}
