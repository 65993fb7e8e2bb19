import type { MaintenanceWindow } from '../window/window';

/** Where maintenance windows live. Each method commits on its own; a window's name is unique. */
export abstract class WindowStore {
  /** Stores the window; answers false (writing nothing) when another window has its name. */
  abstract create(window: MaintenanceWindow): Promise<boolean>;
  abstract find(windowId: string): Promise<MaintenanceWindow | null>;
  /** Every window, oldest first. */
  abstract list(): Promise<MaintenanceWindow[]>;
  /** Answers false when there was none. */
  abstract delete(windowId: string): Promise<boolean>;
}
