import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  OutboxRecord,
  Store,
  UnitOfWork,
} from '@acm/domain';
import { DomainError } from '@acm/domain';

/** What each port's contract gets from `describeStoreContract`: the adapter under test and the suite's helpers. */
export interface ContractContext {
  /** A test with the suite's timeout. */
  readonly it: (title: string, body: () => Promise<void>) => void;
  /** The adapter's unit of work (known once the suite's `beforeAll` ran). */
  readonly unitOfWork: () => UnitOfWork;
  /** Committed outbox rows not yet relayed, oldest first: the relay's view (adapter-specific, not a port). */
  readonly queuedOutbox: () => Promise<OutboxRecord[]>;
  readonly inTransaction: <T>(work: (store: Store) => Promise<T>) => Promise<T>;
  readonly read: <T>(work: (store: Store) => Promise<T>) => Promise<T>;
  /** A new definition, committed. */
  readonly storedDefinition: (overrides?: Partial<CompositionDefinition>) => Promise<CompositionDefinition>;
  /** A new instance of a new definition, committed. */
  readonly storedInstance: (
    elements?: readonly InstanceElement[],
    overrides?: Partial<AutomationComposition>,
  ) => Promise<AutomationComposition>;
}

/** A promise with its resolver: one transaction opens it, another waits on it. */
export function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

export function codeOf(error: unknown): string {
  return error instanceof DomainError ? error.code : `not a DomainError: ${String(error)}`;
}

/** The code a refused promise was refused with; 'resolved' when it was not refused. */
export async function refusalOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return codeOf(error);
  }
  return 'resolved';
}
