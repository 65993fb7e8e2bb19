import {
  ApprovalStore,
  Clock,
  DomainError,
  IdGenerator,
  UnitOfWork,
  approvalRuleFor,
  approve,
  closeApproval,
  expireIfDue,
  isApprovalOrder,
  isDomainError,
  openApproval,
  parseRolloutRequest,
  reject,
  roleOf,
  runtimeActor,
} from '@acm/domain';
import type { AccessSubject, Actor, HistoryEventKind, OperationEvent, PendingApproval } from '@acm/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { currentRequestContext, requestActor, withRequestContext } from '../observability/request-context';
import { CommissioningService } from './commissioning.service';
import { InstanceOrders, orderNameOf } from './instance-orders';
import type { InstanceOrder } from './instance-orders';
import { InstantiationService } from './instantiation.service';
import type { InstantiationResponse } from './instantiation.service';

/** Who waits for what, as the instance's GET shows it (beside ONAP's fields): times as ISO 8601. */
export interface PendingApprovalView {
  readonly approvalId: string;
  readonly order: string;
  readonly orderedBy: string;
  readonly orderedAt: string;
  readonly required: number;
  readonly approvals: ReadonlyArray<{ readonly by: string; readonly at: string }>;
  readonly expiresAt: string;
}

/** An approval as GET /v2/approvals shows it. */
export interface ApprovalView extends PendingApprovalView {
  readonly project: string;
  readonly compositionId: string;
  readonly instanceId: string;
  readonly role: string;
  readonly state: string;
  readonly closedBy: string | null;
  readonly closedAt: string | null;
  readonly reason: string | null;
}

/** What an order answers: the ONAP answer, and the approval it waits for when a rule holds it. */
export interface OrderOutcome {
  readonly answer: InstantiationResponse | undefined;
  readonly held: PendingApproval<InstanceOrder> | null;
}

/** Who gives an order that waits, when authentication is off (no principal): nobody can be told apart. */
const UNAUTHENTICATED = '(unauthenticated)';

const iso = (at: number): string => new Date(at).toISOString();

export function pendingApprovalView(approval: PendingApproval): PendingApprovalView {
  return {
    approvalId: approval.approvalId,
    order: approval.order,
    orderedBy: approval.orderedBy,
    orderedAt: iso(approval.orderedAt),
    required: approval.required,
    approvals: approval.approvals.map((vote) => ({ by: vote.by, at: iso(vote.at) })),
    expiresAt: iso(approval.expiresAt),
  };
}

export function approvalView(approval: PendingApproval): ApprovalView {
  return {
    ...pendingApprovalView(approval),
    project: approval.project,
    compositionId: approval.compositionId,
    instanceId: approval.instanceId,
    role: approval.role,
    state: approval.state,
    closedBy: approval.closedBy,
    closedAt: approval.closedAt === null ? null : iso(approval.closedAt),
    reason: approval.reason,
  };
}

/**
 * Approval policies: an order that a rule of RUNTIME_POLICY_FILE holds is stored to wait for its approvals instead of
 * running; the N-th approval submits it through `InstanceOrders`, as the orderer, exactly as it was given. The rules
 * (who may approve, how many, self-approval, duplicates, expiry) are the domain's; this reads, writes and records
 * history. Expiry is judged lazily, whenever an approval is read or decided, so an expired order never runs.
 */
@Injectable()
export class ApprovalsService {
  private readonly logger = new Logger('Approvals');

  constructor(
    private readonly store: ApprovalStore,
    private readonly orders: InstanceOrders,
    private readonly instantiation: InstantiationService,
    private readonly commissioning: CommissioningService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
  ) {}

  /** Whether any rule exists: without one, orders go straight through and nothing is read. */
  private get active(): boolean {
    return this.config.approvalRules.length > 0;
  }

  /**
   * Gives an order to an instance: submits it, or stores it to wait when a rule holds it. An instance with an order
   * waiting takes no other (409 naming the approval).
   */
  async order(order: InstanceOrder, orderedBy: string | null): Promise<OrderOutcome> {
    if (!this.active) {
      return { answer: await this.orders.submit(order), held: null };
    }
    const waiting = await this.current(await this.store.pendingOf(order.instanceId));
    if (waiting !== null && waiting.state === 'PENDING') {
      throw new DomainError(
        'APPROVAL_PENDING',
        `Instance ${order.instanceId} has an order waiting for approvals: approval ${waiting.approvalId} ` +
          `(${waiting.order} by ${waiting.orderedBy}, ${waiting.approvals.length} of ${waiting.required}); ` +
          'approve or reject it first',
        { instanceId: order.instanceId, approvalId: waiting.approvalId },
      );
    }
    const name = orderNameOf(order);
    const project = name === null ? null : await this.commissioning.projectOf(order.compositionId);
    if (name === null || project === null || !isApprovalOrder(name)) {
      return { answer: await this.orders.submit(order), held: null };
    }
    // The instance must exist under this definition, as the order itself would have checked first (404); its
    // metadata is what a rule on labels judges.
    const instance = await this.instantiation.get(order.compositionId, order.instanceId);
    const rule = approvalRuleFor(this.config.approvalRules, {
      project,
      compositionId: order.compositionId,
      order: name,
      metadata: instance.metadata,
    });
    if (rule === null) {
      return { answer: await this.orders.submit(order), held: null };
    }
    const approval = openApproval(
      rule,
      {
        approvalId: this.ids.uuid(),
        compositionId: order.compositionId,
        instanceId: order.instanceId,
        order: name,
        request: order,
        orderedBy: orderedBy ?? UNAUTHENTICATED,
      },
      this.clock.now(),
    );
    if (!(await this.store.create(approval))) {
      throw new DomainError(
        'APPROVAL_PENDING',
        `Instance ${order.instanceId} has an order waiting for approvals; approve or reject it first`,
        { instanceId: order.instanceId },
      );
    }
    await this.record('APPROVAL_REQUESTED', approval, requestActor());
    this.logger.log(
      `${name} of instance ${order.instanceId} by ${approval.orderedBy} waits for ${rule.approvals} approvals ` +
        `(approval ${approval.approvalId})`,
    );
    const answer =
      order.kind === 'STATE'
        ? undefined
        : {
            instanceId: instance.instanceId,
            affectedAutomationComposition: { name: instance.name, version: instance.version },
          };
    return { answer, held: approval };
  }

  /**
   * Refuses a rollout of an order that an approval rule holds in the definition's project: a rollout gives its order
   * to each instance itself, so it would run what the rule makes wait. Such orders are given instance by instance.
   */
  async refuseHeldRollout(body: unknown): Promise<void> {
    if (!this.active) {
      return;
    }
    const request = parseRolloutRequest(body);
    const compositionId = request.compositionId.toLowerCase();
    const project = await this.commissioning.projectOf(compositionId);
    const rule =
      project === null
        ? null
        : approvalRuleFor(this.config.approvalRules, {
            project,
            compositionId,
            order: request.order,
          });
    if (rule !== null) {
      throw new DomainError(
        'ORDER_NOT_ALLOWED',
        `order: a rollout cannot ${request.order}: in project ${rule.project} an approval rule makes ${request.order} ` +
          `wait for ${rule.approvals} approvals by ${rule.role}s; give the order to each instance instead`,
        { order: request.order, project: rule.project },
      );
    }
  }

  /** The order waiting for approvals on the instance, if any (none while no rule exists). */
  async pendingOf(instanceId: string): Promise<PendingApproval | null> {
    if (!this.active) {
      return null;
    }
    const waiting = await this.current(await this.store.pendingOf(instanceId));
    return waiting?.state === 'PENDING' ? waiting : null;
  }

  /** The approvals of the projects given (all when undefined), newest first. */
  async list(query: { projects?: readonly string[]; pendingOnly: boolean; limit: number }): Promise<ApprovalView[]> {
    const approvals = await this.store.list(query);
    const current = await Promise.all(approvals.map((approval) => this.current(approval)));
    return current
      .filter((approval): approval is PendingApproval => approval !== null)
      .filter((approval) => !query.pendingOnly || approval.state === 'PENDING')
      .map(approvalView);
  }

  /** One approval more by the caller; the last one needed submits the order as the orderer gave it. */
  async approve(approvalId: string, caller: AccessSubject | undefined): Promise<ApprovalView> {
    const found = await this.find(approvalId);
    const now = this.clock.now();
    const { approval, complete } = approve(found, this.callerIn(found.project, caller), now);
    await this.write(approval);
    await this.record('APPROVED', approval, requestActor());
    if (!complete) {
      return approvalView(approval);
    }
    const closed = await this.submit(approval);
    return approvalView(closed);
  }

  /** Rejects a waiting order with the caller's reason: it never runs. */
  async reject(approvalId: string, caller: AccessSubject | undefined, reason: string): Promise<ApprovalView> {
    const found = await this.find(approvalId);
    const rejected = reject(found, this.callerIn(found.project, caller), reason, this.clock.now());
    await this.write(rejected);
    await this.record('APPROVAL_REJECTED', rejected, requestActor());
    this.logger.log(`Approval ${approvalId} rejected by ${rejected.closedBy ?? ''}`);
    return approvalView(rejected);
  }

  /** Submits an approved order as its orderer (the actor of ORDERED), and records how it went. */
  private async submit(approval: PendingApproval): Promise<PendingApproval> {
    const order = approval.request as InstanceOrder;
    const context = currentRequestContext();
    let refusal: string | null = null;
    try {
      await withRequestContext({ requestId: context?.requestId, user: approval.orderedBy }, () =>
        this.orders.submit(order),
      );
    } catch (error) {
      if (!isDomainError(error)) {
        // The store failed: the order may not have run. The approval says so, and the order can be given again.
        const reason = `the approved ${approval.order} could not be submitted; order it again`;
        await this.write(closeApproval(approval, reason, this.clock.now()));
        throw error;
      }
      refusal = `the approved ${approval.order} was refused when it ran: ${error.message}`;
    }
    const closed = closeApproval(approval, refusal, this.clock.now());
    await this.write(closed);
    this.logger.log(
      `Approval ${approval.approvalId}: ${approval.order} of instance ${approval.instanceId} ` +
        (refusal === null ? 'submitted' : `refused (${refusal})`),
    );
    return closed;
  }

  private async find(approvalId: string): Promise<PendingApproval> {
    const found = await this.current(await this.store.find(approvalId));
    if (found === null) {
      throw new DomainError('NOT_FOUND', `Approval ${approvalId} not found`, { approvalId });
    }
    return found;
  }

  /** The approval as it stands now: a PENDING one past its time is marked EXPIRED (and recorded) first. */
  private async current(approval: PendingApproval | null): Promise<PendingApproval | null> {
    if (approval === null) {
      return null;
    }
    const expired = expireIfDue(approval, this.clock.now());
    if (expired === null) {
      return approval;
    }
    if (await this.store.update(expired)) {
      await this.record('APPROVAL_EXPIRED', expired, runtimeActor('approval-expiry'));
      this.logger.log(`Approval ${approval.approvalId} (${approval.order} of ${approval.instanceId}) expired`);
      return expired;
    }
    // Another request changed it first: read what it wrote.
    return this.current(await this.store.find(approval.approvalId));
  }

  private callerIn(
    project: string,
    caller: AccessSubject | undefined,
  ): { user: string; role: ReturnType<typeof roleOf> } {
    if (caller === undefined) {
      return { user: UNAUTHENTICATED, role: null };
    }
    return { user: caller.user, role: roleOf(this.config.policy, caller, project) };
  }

  private async write(approval: PendingApproval): Promise<void> {
    if (!(await this.store.update(approval))) {
      throw new DomainError(
        'CONCURRENT_MODIFICATION',
        `Approval ${approval.approvalId} changed meanwhile; read it again and retry`,
        { approvalId: approval.approvalId },
      );
    }
  }

  private async record(
    kind: Extract<HistoryEventKind, 'APPROVAL_REQUESTED' | 'APPROVED' | 'APPROVAL_REJECTED' | 'APPROVAL_EXPIRED'>,
    approval: PendingApproval,
    actor: Actor | null,
  ): Promise<void> {
    const event: OperationEvent = {
      subjectId: approval.instanceId,
      operationId: null,
      event: kind,
      detail: {
        approvalId: approval.approvalId,
        order: approval.order,
        required: approval.required,
        approvers: approval.approvals.map((vote) => vote.by),
        orderedBy: approval.orderedBy,
        reason: approval.reason,
      },
      actor: actor ?? { kind: 'request', user: null, requestId: null },
      at: this.clock.now(),
    };
    await this.unitOfWork.transaction((store) => store.events.append([event]));
  }
}
