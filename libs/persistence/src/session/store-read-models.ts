import type { ReadModel, UnitOfWork } from '@acm/domain';
import { ReadModels } from '@acm/domain';

/** The REST pages' read model over the unit of work's reads: each page sees the store's read-only view. */
export class StoreReadModels extends ReadModels {
  constructor(private readonly unitOfWork: UnitOfWork) {
    super();
  }

  override read<T>(work: (model: ReadModel) => Promise<T>): Promise<T> {
    return this.unitOfWork.read((store) => work(store));
  }
}
