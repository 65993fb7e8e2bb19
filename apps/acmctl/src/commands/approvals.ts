import type { Command } from 'commander';
import { AcmctlError, EXIT } from '../exit-codes';
import type { TableView } from '../output';
import { formatTable } from '../output';
import type { CommandContext } from './context';
import { query } from './context';

/** An approval as GET /v2/approvals answers it (the fields the table shows). */
export interface ApprovalBody {
  readonly approvalId: string;
  readonly project: string;
  readonly instanceId: string;
  readonly order: string;
  readonly orderedBy: string;
  readonly required: number;
  readonly approvals: ReadonlyArray<{ readonly by: string }>;
  readonly state: string;
  readonly expiresAt: string;
  readonly reason: string | null;
}

/** One row per approval: who ordered what, who approved so far out of how many, and where it stands. */
export function approvalsTable(body: unknown): TableView {
  // A list answers {approvals: [...]}; one approval (approve, reject) has approvals too, its votes, and an approvalId.
  const approvals =
    typeof body === 'object' && body !== null && 'approvalId' in body
      ? [body as ApprovalBody]
      : ((body as { approvals?: ApprovalBody[] }).approvals ?? []);
  return {
    headers: ['APPROVAL', 'PROJECT', 'INSTANCE', 'ORDER', 'BY', 'APPROVED', 'STATE', 'EXPIRES', 'REASON'],
    rows: approvals.map((approval) => [
      approval.approvalId,
      approval.project,
      approval.instanceId,
      approval.order,
      approval.orderedBy,
      `${approval.approvals.length}/${approval.required}${
        approval.approvals.length === 0 ? '' : ` (${approval.approvals.map((vote) => vote.by).join(', ')})`
      }`,
      approval.state,
      approval.expiresAt,
      approval.reason ?? '',
    ]),
  };
}

const approvalPath = (approval: string, verb: 'approve' | 'reject'): string =>
  `/approvals/${encodeURIComponent(approval)}/${verb}`;

/** `acmctl approvals`: the orders waiting for approvals, and approving or rejecting one. */
export function registerApprovals(program: Command, { connect, print }: CommandContext): void {
  const approvals = program
    .command('approvals')
    .description('orders that wait for approvals (approval rules of the policy file)');
  approvals
    .command('list')
    .description('the approvals of your projects, newest first')
    .option('--pending', 'only those still waiting')
    .action(async (options: { pending?: boolean }, command: Command) => {
      const path = `/approvals${query({ state: options.pending === true ? 'PENDING' : undefined })}`;
      print(command, await connect(command).get(path), (body) => formatTable(approvalsTable(body)));
    });
  approvals
    .command('approve <approval>')
    .description('approve an order; the last approval needed runs it as its orderer gave it')
    .action(async (approval: string, _options: unknown, command: Command) => {
      const answer = await connect(command).request('POST', approvalPath(approval, 'approve'));
      print(command, answer.body, (body) => formatTable(approvalsTable(body)));
    });
  approvals
    .command('reject <approval>')
    .description('reject an order with a reason: it never runs')
    .requiredOption('--reason <text>', 'why (kept in the approval and the history)')
    .action(async (approval: string, options: { reason: string }, command: Command) => {
      if (options.reason.trim() === '') {
        throw new AcmctlError(EXIT.USAGE, '--reason: must say why');
      }
      const answer = await connect(command).request('POST', approvalPath(approval, 'reject'), {
        reason: options.reason,
      });
      print(command, answer.body, (body) => formatTable(approvalsTable(body)));
    });
}
