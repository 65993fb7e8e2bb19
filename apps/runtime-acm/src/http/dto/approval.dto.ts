import { APPROVAL_STATES, ROLES } from '@acm/domain';
import { ApiProperty } from '@nestjs/swagger';
import type { ApprovalView, PendingApprovalView } from '../../application/approvals.service';

export class ApprovalVoteDto {
  @ApiProperty({ description: 'The approver', example: 'carol' })
  by!: string;

  @ApiProperty({ format: 'date-time', description: 'When it approved' })
  at!: string;
}

/** An order waiting for approvals, as the instance's GET shows it. */
export class PendingApprovalDto implements PendingApprovalView {
  @ApiProperty({ format: 'uuid', description: 'POST /v2/approvals/{approvalId}/approve or /reject decides it' })
  approvalId!: string;

  @ApiProperty({ description: 'The order waiting', example: 'DEPLOY' })
  order!: string;

  @ApiProperty({ description: 'Who gave it; it cannot approve it', example: 'alice' })
  orderedBy!: string;

  @ApiProperty({ format: 'date-time' })
  orderedAt!: string;

  @ApiProperty({ type: 'integer', description: 'How many approvals it needs', example: 2 })
  required!: number;

  @ApiProperty({ type: [ApprovalVoteDto], description: 'The approvals so far, in order' })
  approvals!: ApprovalVoteDto[];

  @ApiProperty({ format: 'date-time', description: 'When it expires unless approved: it never runs after' })
  expiresAt!: string;
}

export class ApprovalDto extends PendingApprovalDto implements ApprovalView {
  @ApiProperty({ description: 'The project of the instance', example: 'prod' })
  project!: string;

  @ApiProperty({ format: 'uuid' })
  compositionId!: string;

  @ApiProperty({ format: 'uuid' })
  instanceId!: string;

  @ApiProperty({ enum: ROLES, description: 'The role each approver needs in the project' })
  role!: string;

  @ApiProperty({
    enum: APPROVAL_STATES,
    description:
      'PENDING waits; EXECUTED: the last approval submitted the order; REFUSED: the order was refused when it ran ' +
      '(reason says why); REJECTED and EXPIRED never ran',
  })
  state!: string;

  @ApiProperty({ type: String, nullable: true, description: 'Who rejected it' })
  closedBy!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it stopped waiting' })
  closedAt!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The rejection's reason, the expiry's, or why the order was refused when it ran",
  })
  reason!: string | null;
}

export class ApprovalsDto {
  @ApiProperty({ type: [ApprovalDto], description: 'Newest first' })
  approvals!: ApprovalDto[];
}

export class RejectionDto {
  @ApiProperty({ description: 'Why: kept in the approval and the history', minLength: 1, maxLength: 500 })
  reason!: string;
}
