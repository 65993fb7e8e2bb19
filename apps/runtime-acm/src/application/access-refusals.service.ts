import { Clock, REFUSAL_SUBJECT, UnitOfWork } from '@acm/domain';
import type { OperationEvent } from '@acm/domain';
import { Injectable, Logger } from '@nestjs/common';
import { RefusalBudget } from '../security/refusal-budget';

/** A refused request as the audit ledger keeps it: never the password or the token. */
export interface Refusal {
  readonly status: 401 | 403;
  readonly reason: string;
  readonly method: string;
  readonly path: string;
  readonly source: string | null;
  /** The user name the request gave (Basic) or the token's subject, when known. */
  readonly user: string | null;
  readonly requestId: string | null;
}

/** Longest path kept: a refusal's path is the caller's text, so it is cut rather than stored whole. */
const MAX_PATH = 512;
const MAX_USER = 128;

/**
 * Writes refused requests (401, 403) to the audit ledger as ACCESS_REFUSED events, bounded per source address
 * (RefusalBudget). The request is answered first: a failing write is logged, never turned into the answer.
 */
@Injectable()
export class AccessRefusals {
  private readonly logger = new Logger('AccessRefusals');
  private readonly budget = new RefusalBudget();

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /** Records the refusal unless its source is over budget; resolves once written (or skipped, or failed and logged). */
  async record(refusal: Refusal): Promise<void> {
    const now = this.clock.now();
    const admitted = this.budget.admit(refusal.source ?? '', now);
    if (!admitted.record) {
      return;
    }
    const event: OperationEvent = {
      subjectId: REFUSAL_SUBJECT,
      operationId: null,
      event: 'ACCESS_REFUSED',
      detail: {
        status: refusal.status,
        reason: refusal.reason,
        method: refusal.method,
        path: refusal.path.slice(0, MAX_PATH),
        source: refusal.source,
        unrecorded: admitted.unrecorded,
      },
      actor: { kind: 'request', user: refusal.user?.slice(0, MAX_USER) ?? null, requestId: refusal.requestId },
      at: now,
    };
    try {
      await this.unitOfWork.transaction((store) => store.events.append([event]));
    } catch (error) {
      this.logger.warn(`A refused request could not be recorded: ${(error as Error).message}`);
    }
  }
}
