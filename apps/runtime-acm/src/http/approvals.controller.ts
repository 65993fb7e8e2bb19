import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApprovalsService } from '../application/approvals.service';
import type { ApprovalView } from '../application/approvals.service';
import { principalOf } from '../security/principal';
import { visibleProjectsOf } from './access-guard';
import { ApprovalDto, ApprovalsDto, RejectionDto } from './dto/approval.dto';
import { ApiController, ApiJsonOrYamlBody, ApiRefusals, ApiUuidParam, TAGS } from './openapi';
import { asObject, invalid, optionalString, parseUuid, requiredText } from './request-parsing';

const APPROVAL_ID = 'The approvalId the instance shows in pendingApproval';
/** Longest rejection reason: it is the caller's text, kept in the approval and the history. */
const MAX_REASON = 500;
/** Most approvals a list answers, and how many by default. */
const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 100;

function parseLimit(value: unknown): number {
  const text = optionalString('limit', value);
  if (text === undefined || text === '') {
    return DEFAULT_LIMIT;
  }
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_LIMIT) {
    throw invalid(`limit: must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(text.slice(0, 40))}`);
  }
  return Number(text);
}

function parsePendingOnly(value: unknown): boolean {
  const text = optionalString('state', value);
  if (text === undefined || text === '') {
    return false;
  }
  if (text !== 'PENDING') {
    throw invalid(`state: only PENDING may be asked for, got ${JSON.stringify(text.slice(0, 40))}`);
  }
  return true;
}

/**
 * Approvals, beyond ONAP: the orders an approval rule of the policy holds, and their approval or rejection. The access
 * guard lets every caller with a role in some project through; the list shows only its projects' approvals, and
 * deciding one needs the rule's role in its project (403 naming it), checked by the domain's rules.
 */
@ApiController(TAGS.approval)
@Controller('v2/approvals')
export class ApprovalsController {
  constructor(private readonly approvals: ApprovalsService) {}

  @Get()
  @ApiOperation({
    operationId: 'queryApprovals',
    summary: "The approvals of the caller's projects, newest first",
    description: 'An approval past its expiry is marked EXPIRED when read: it never runs.',
  })
  @ApiQuery({ name: 'state', required: false, schema: { type: 'string', enum: ['PENDING'] } })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT } })
  @ApiOkResponse({ type: ApprovalsDto })
  @ApiRefusals(400)
  async list(
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ approvals: ApprovalView[] }> {
    const projects = visibleProjectsOf(response);
    const approvals = await this.approvals.list({
      ...(projects === undefined ? {} : { projects }),
      pendingOnly: parsePendingOnly(query['state']),
      limit: parseLimit(query['limit']),
    });
    return { approvals };
  }

  @Post(':approvalId/approve')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'approveOrder',
    summary: 'Approve an order waiting for approvals; the last one needed submits it as its orderer gave it',
    description:
      '409: the orderer approving its own order, a second approval by the same user, or an approval that is no ' +
      'longer PENDING (rejected, expired, executed). 403: the caller lacks the role the rule needs in the project.',
  })
  @ApiUuidParam('approvalId', APPROVAL_ID)
  @ApiOkResponse({
    type: ApprovalDto,
    description: 'The approval after this one (EXECUTED or REFUSED if it was the last)',
  })
  @ApiRefusals(400, 403, 404, 409)
  async approve(
    @Param('approvalId') approvalId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ApprovalView> {
    return this.approvals.approve(parseUuid('approvalId', approvalId), principalOf(response));
  }

  @Post(':approvalId/reject')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rejectOrder',
    summary: 'Reject an order waiting for approvals, with a reason: it never runs',
    description: 'Its orderer may withdraw it this way too.',
  })
  @ApiUuidParam('approvalId', APPROVAL_ID)
  @ApiJsonOrYamlBody(RejectionDto, 'Why', {
    reason: { summary: 'A reason', value: { reason: 'not before the audit' } },
  })
  @ApiOkResponse({ type: ApprovalDto, description: 'The approval, REJECTED' })
  @ApiRefusals(400, 403, 404, 409)
  async reject(
    @Param('approvalId') approvalId: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ApprovalView> {
    const id = parseUuid('approvalId', approvalId);
    const reason = requiredText('reason', asObject('body', body ?? {})['reason']).trim();
    if (reason.length > MAX_REASON) {
      throw invalid(`reason: must be at most ${MAX_REASON} characters`);
    }
    return this.approvals.reject(id, principalOf(response), reason);
  }
}
