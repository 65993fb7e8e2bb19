import type {
  AutomationComposition,
  OperationSession,
  SessionKeys,
  SessionScope,
  Store,
  SupervisionQueries,
  UnitOfWork,
  Versioned,
} from '@acm/domain';
import { OperationSessions, supervisionQueriesOf } from '@acm/domain';
import { BufferedSession } from './buffered-session';

/**
 * Operation sessions over a unit of work (TypeORM's, the in-memory twin, or either observed): each holds its
 * writes in memory and writes them with one set statement per kind of row when it commits (`BufferedSession`).
 */
export class BufferedSessions extends OperationSessions {
  constructor(private readonly unitOfWork: UnitOfWork) {
    super();
  }

  override transaction<T>(
    keys: SessionKeys,
    work: (session: OperationSession, scope: SessionScope) => Promise<T>,
  ): Promise<T> {
    return this.unitOfWork.transaction(async (store) => {
      const session = await BufferedSession.open(store, keys);
      const result = await work(session, { store: session, queries: supervisionQueriesOf(session) });
      await session.commit();
      return result;
    });
  }

  override join(store: Store, locked: ReadonlyArray<Versioned<AutomationComposition>>): OperationSession {
    return BufferedSession.over(store, locked);
  }

  override read<T>(work: (queries: SupervisionQueries) => Promise<T>): Promise<T> {
    return this.unitOfWork.read((store) => work(supervisionQueriesOf(store)));
  }
}
