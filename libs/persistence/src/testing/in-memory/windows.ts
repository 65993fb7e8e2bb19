import { WindowStore } from '@acm/domain';
import type { MaintenanceWindow } from '@acm/domain';

const copy = <T>(value: T): T => structuredClone(value);

/** The window port in memory: the twin of `TypeOrmWindowStore` for unit tests. */
export class InMemoryWindowStore extends WindowStore {
  private readonly rows = new Map<string, MaintenanceWindow>();

  override create(window: MaintenanceWindow): Promise<boolean> {
    if ([...this.rows.values()].some((held) => held.name === window.name) || this.rows.has(window.windowId)) {
      return Promise.resolve(false);
    }
    this.rows.set(window.windowId, copy(window));
    return Promise.resolve(true);
  }

  override find(windowId: string): Promise<MaintenanceWindow | null> {
    const held = this.rows.get(windowId);
    return Promise.resolve(held === undefined ? null : copy(held));
  }

  override list(): Promise<MaintenanceWindow[]> {
    return Promise.resolve(
      [...this.rows.values()]
        .sort((a, b) => a.createdAt - b.createdAt || a.windowId.localeCompare(b.windowId))
        .map(copy),
    );
  }

  override delete(windowId: string): Promise<boolean> {
    return Promise.resolve(this.rows.delete(windowId));
  }
}
