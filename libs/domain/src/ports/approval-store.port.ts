import type { PendingApproval } from '../access/approvals';

/** Where approvals live. Each method commits on its own; an instance has at most one PENDING approval. */
export abstract class ApprovalStore {
  /** Stores a new approval; answers false (writing nothing) when the instance already has a PENDING one. */
  abstract create(approval: PendingApproval): Promise<boolean>;
  abstract find(approvalId: string): Promise<PendingApproval | null>;
  /** The instance's PENDING approval, if any (maybe past its expiry: the caller judges it). */
  abstract pendingOf(instanceId: string): Promise<PendingApproval | null>;
  /** The approvals of the projects given (every project when undefined), newest first, at most `limit`. */
  abstract list(query: {
    projects?: readonly string[];
    pendingOnly: boolean;
    limit: number;
  }): Promise<PendingApproval[]>;
  /**
   * Writes the approval's new version when the stored one is still `version - 1`; answers false (writing nothing)
   * when another change came first.
   */
  abstract update(approval: PendingApproval): Promise<boolean>;
}
