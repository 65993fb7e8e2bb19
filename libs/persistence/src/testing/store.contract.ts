/**
 * The behavioural contract of the store ports (`UnitOfWork`, every repository, and the operation sessions over
 * them), one file per port in `contracts/`, run against every adapter (the in-memory twin in the unit project,
 * PostgreSQL in the integration project) so they cannot drift apart. Tests share one store per adapter: every test
 * uses fresh random ids, names and topics, and looks only at what it wrote. Concurrency is shown with gates
 * (promises one transaction waits on), never with sleeps.
 */
import { randomUUID } from 'node:crypto';

import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  OutboxRecord,
  Store,
  UnitOfWork,
} from '@acm/domain';

import { definitionOf, elementOf, instanceOf } from './builders';
import type { ContractContext } from './contracts/contract-support';
import { describeDefinitionsContract } from './contracts/definitions.contract';
import { describeInstancesContract } from './contracts/instances.contract';
import { describeOperationSessionContract } from './contracts/operation-session.contract';
import { describeOperationsContract } from './contracts/operations.contract';
import { describeParticipantsContract } from './contracts/participants.contract';
import { describeRecordsContract } from './contracts/records.contract';
import { describeStoreWritesContract } from './contracts/store-writes.contract';
import { describeUnitOfWorkContract } from './contracts/unit-of-work.contract';

/** What the suite needs from an adapter under test. */
export interface StoreContractFixture {
  readonly unitOfWork: UnitOfWork;
  /** Committed outbox rows not yet relayed, oldest first: the relay's view (adapter-specific, not a port). */
  queuedOutbox(): Promise<OutboxRecord[]>;
  close(): Promise<void>;
}

export interface StoreContractOptions {
  /** Timeout of each test and hook. Default 60 s. */
  testTimeoutMs?: number;
}

/** Registers the contract suite for one adapter; `open` is called once, before the tests. */
export function describeStoreContract(
  name: string,
  open: () => Promise<StoreContractFixture>,
  options: StoreContractOptions = {},
): void {
  const testTimeout = options.testTimeoutMs ?? 60_000;

  describe(`Store contract: ${name}`, () => {
    let fixture: StoreContractFixture;

    beforeAll(async () => {
      fixture = await open();
    }, testTimeout);

    afterAll(async () => {
      await fixture.close();
    }, testTimeout);

    const inTransaction = <T>(work: (store: Store) => Promise<T>): Promise<T> => fixture.unitOfWork.transaction(work);

    async function storedDefinition(overrides: Partial<CompositionDefinition> = {}): Promise<CompositionDefinition> {
      const definition = definitionOf(overrides);
      await inTransaction((store) => store.definitions.insert(definition));
      return definition;
    }

    async function storedInstance(
      elements: readonly InstanceElement[] = [elementOf(randomUUID())],
      overrides: Partial<AutomationComposition> = {},
    ): Promise<AutomationComposition> {
      const definition = await storedDefinition();
      const instance = instanceOf(definition.compositionId, elements, overrides);
      await inTransaction((store) => store.instances.insert(instance));
      return instance;
    }

    const context: ContractContext = {
      it: (title, body) => test(title, body, testTimeout),
      unitOfWork: () => fixture.unitOfWork,
      queuedOutbox: () => fixture.queuedOutbox(),
      inTransaction,
      read: (work) => fixture.unitOfWork.read(work),
      storedDefinition,
      storedInstance,
    };
    describeStoreWritesContract(context);
    describeUnitOfWorkContract(context);
    describeDefinitionsContract(context);
    describeInstancesContract(context);
    describeParticipantsContract(context);
    describeOperationsContract(context);
    describeRecordsContract(context);
    describeOperationSessionContract(context);
  });
}
