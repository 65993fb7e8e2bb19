import { DomainError, isDomainError } from '../errors';
import { metadataHolds, parseMetadataValues } from '../instance/metadata-filter';
import type { MetadataValues } from '../instance/metadata-filter';
import { ROLES, isProjectName, isRole, roleIncludes } from './access-policy';
import type { Role } from './access-policy';

/** The orders an approval rule may hold: the state changes of PUT, DELETE, and an update or migration by POST. */
export const APPROVAL_ORDERS = ['DEPLOY', 'UNDEPLOY', 'LOCK', 'UNLOCK', 'DELETE', 'UPDATE', 'MIGRATE'] as const;
export type ApprovalOrder = (typeof APPROVAL_ORDERS)[number];

export function isApprovalOrder(value: unknown): value is ApprovalOrder {
  return typeof value === 'string' && (APPROVAL_ORDERS as readonly string[]).includes(value);
}

/** The role an approval needs when a rule names none. */
export const DEFAULT_APPROVAL_ROLE: Role = 'approver';
/** How long an order waits for its approvals when a rule says nothing: a day. */
export const DEFAULT_APPROVAL_EXPIRY = 'PT24H';

/** Most approvals a rule may ask: beyond it the order could never gather them in practice. */
const MAX_APPROVALS = 10;
/** Longest wait a rule may set: 30 days. */
const MAX_EXPIRY_MS = 30 * 24 * 3_600_000;

/**
 * A rule of the access policy: orders of the given kinds to the instances of a project (or of one definition in
 * it) wait for `approvals` approvals by holders of `role` there, for at most `expiresAfterMs`.
 */
export interface ApprovalRule {
  readonly project: string;
  /** Only the instances of this definition; null: every definition of the project. */
  readonly compositionId: string | null;
  /** Only the instances whose metadata has these values (labels such as `site: prod`); null: any instance. */
  readonly metadata: MetadataValues | null;
  readonly orders: readonly ApprovalOrder[];
  readonly approvals: number;
  readonly role: Role;
  /** The ISO 8601 duration as written, and in milliseconds. */
  readonly expiresAfter: string;
  readonly expiresAfterMs: number;
}

const ISO_DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/**
 * An ISO 8601 duration of weeks, days, hours, minutes and seconds ("PT24H", "P2D", "PT1H30M"), in milliseconds; null
 * when it is none, or zero. Years and months are refused: their length depends on the date.
 */
export function parseIsoDuration(text: string): number | null {
  const match = ISO_DURATION.exec(text.trim().toUpperCase());
  if (match === null || text.trim().toUpperCase().endsWith('T')) {
    return null;
  }
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  const ms = ((((weeks! * 7 + days!) * 24 + hours!) * 60 + minutes!) * 60 + seconds!) * 1000;
  return ms > 0 ? ms : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads the `approvals:` list of a policy document. `projects` are the projects the policy names (a rule must name
 * one of them); `lineOf(key, from)` finds the first line at or after `from` where a key is written, so each problem
 * names the rule's line. Each problem reads `<line>: approvals[<i>] (project p) <field>: <what is wrong>`.
 */
export function readApprovalRules(
  value: unknown,
  projects: readonly string[],
  lineOf: (key: string, from?: number) => number | null,
): { rules: ApprovalRule[]; problems: string[] } {
  if (value === undefined || value === null) {
    return { rules: [], problems: [] };
  }
  const listLine = lineOf('approvals');
  if (!Array.isArray(value)) {
    return { rules: [], problems: [`${lineText(listLine)}: approvals: must be a list of rules`] };
  }
  const rules: ApprovalRule[] = [];
  const problems: string[] = [];
  let from = listLine ?? 1;
  value.forEach((entry: unknown, index) => {
    const ruleLine = lineOf('project', from);
    if (ruleLine !== null) {
      from = ruleLine + 1;
    }
    const read = readRule(entry, projects);
    const project = isRecord(entry) && typeof entry['project'] === 'string' ? ` (project ${entry['project']})` : '';
    for (const { field, problem } of read.problems) {
      const line = field === null ? ruleLine : (lineOf(field, ruleLine ?? undefined) ?? ruleLine);
      problems.push(`${lineText(line)}: approvals[${index}]${project} ${field ?? 'rule'}: ${problem}`);
    }
    if (read.rule !== null) {
      rules.push(read.rule);
    }
  });
  return { rules, problems };
}

function readRule(
  entry: unknown,
  projects: readonly string[],
): { rule: ApprovalRule | null; problems: Array<{ field: string | null; problem: string }> } {
  const problems: Array<{ field: string | null; problem: string }> = [];
  if (!isRecord(entry)) {
    return { rule: null, problems: [{ field: null, problem: 'must be a mapping with project, orders and approvals' }] };
  }
  const known = ['project', 'compositionId', 'metadata', 'orders', 'approvals', 'role', 'expiresAfter'];
  for (const key of Object.keys(entry).filter((key) => !known.includes(key))) {
    problems.push({ field: key, problem: `is not a field of a rule (fields: ${known.join(', ')})` });
  }
  const project = entry['project'];
  if (typeof project !== 'string' || !isProjectName(project) || !projects.includes(project)) {
    problems.push({
      field: 'project',
      problem: `must be a project the policy names (${projects.join(', ') || 'none'}), got ${JSON.stringify(project)}`,
    });
  }
  const compositionId = entry['compositionId'] ?? null;
  if (compositionId !== null && (typeof compositionId !== 'string' || !UUID.test(compositionId))) {
    problems.push({ field: 'compositionId', problem: `must be a UUID, got ${JSON.stringify(compositionId)}` });
  }
  let metadata: MetadataValues | null = null;
  if (entry['metadata'] !== undefined && entry['metadata'] !== null) {
    try {
      metadata = parseMetadataValues('metadata', entry['metadata']);
    } catch (error) {
      if (!isDomainError(error)) {
        throw error;
      }
      // "metadata: ..." or "metadata.<key>: ...": the field as the parser named it, then its rule.
      const [field = 'metadata', ...rest] = error.message.split(': ');
      problems.push({ field, problem: rest.join(': ') });
    }
  }
  const orders = entry['orders'];
  if (!Array.isArray(orders) || orders.length === 0) {
    problems.push({ field: 'orders', problem: `must list order kinds (${APPROVAL_ORDERS.join(', ')})` });
  } else {
    for (const order of orders.filter((order) => !isApprovalOrder(order))) {
      problems.push({
        field: 'orders',
        problem: `${JSON.stringify(order)} is not an order kind (${APPROVAL_ORDERS.join(', ')})`,
      });
    }
  }
  const approvals = entry['approvals'];
  if (typeof approvals !== 'number' || !Number.isInteger(approvals) || approvals < 1 || approvals > MAX_APPROVALS) {
    problems.push({
      field: 'approvals',
      problem: `must be a whole number from 1 to ${MAX_APPROVALS}, got ${JSON.stringify(approvals)}`,
    });
  }
  const role = entry['role'] ?? DEFAULT_APPROVAL_ROLE;
  if (typeof role !== 'string' || !isRole(role)) {
    problems.push({
      field: 'role',
      problem: `role ${JSON.stringify(role)} does not exist (roles: ${ROLES.join(', ')})`,
    });
  }
  const expiresAfter = entry['expiresAfter'] ?? DEFAULT_APPROVAL_EXPIRY;
  const expiresAfterMs = typeof expiresAfter === 'string' ? parseIsoDuration(expiresAfter) : null;
  if (expiresAfterMs === null || expiresAfterMs > MAX_EXPIRY_MS) {
    problems.push({
      field: 'expiresAfter',
      problem: `must be an ISO 8601 duration from 1 second to 30 days ("PT24H", "P2D"), got ${JSON.stringify(expiresAfter)}`,
    });
  }
  if (problems.length > 0) {
    return { rule: null, problems };
  }
  return {
    rule: {
      project: project as string,
      compositionId: compositionId === null ? null : (compositionId as string).toLowerCase(),
      metadata,
      orders: [...new Set(orders as ApprovalOrder[])],
      approvals: approvals as number,
      role: role as Role,
      expiresAfter: expiresAfter as string,
      expiresAfterMs: expiresAfterMs!,
    },
    problems,
  };
}

/** An order to one instance, as the rules judge it. */
export interface ApprovalTarget {
  readonly project: string;
  readonly compositionId: string;
  readonly order: string;
  /**
   * The instance's metadata (null: it has none); undefined when the instances are not known one by one (a rollout's
   * selection), so a rule on metadata may hold some of them and counts as holding.
   */
  readonly metadata?: Readonly<Record<string, unknown>> | null;
}

/**
 * The rule that holds the order, or null when none does. When several do, the strictest wins: the most approvals,
 * then the highest role, then the shortest expiry (a definition's own rule cannot loosen its project's).
 */
export function approvalRuleFor(rules: readonly ApprovalRule[], target: ApprovalTarget): ApprovalRule | null {
  let strictest: ApprovalRule | null = null;
  for (const rule of rules) {
    const applies =
      rule.project === target.project &&
      (rule.compositionId === null || rule.compositionId === target.compositionId.toLowerCase()) &&
      (rule.metadata === null || target.metadata === undefined || metadataHolds(rule.metadata, target.metadata)) &&
      (rule.orders as readonly string[]).includes(target.order);
    if (applies && (strictest === null || stricter(rule, strictest))) {
      strictest = rule;
    }
  }
  return strictest;
}

function stricter(a: ApprovalRule, b: ApprovalRule): boolean {
  if (a.approvals !== b.approvals) {
    return a.approvals > b.approvals;
  }
  if (a.role !== b.role) {
    return roleIncludes(a.role, b.role);
  }
  return a.expiresAfterMs < b.expiresAfterMs;
}

/**
 * Where an approval stands: PENDING waits for approvals; EXECUTED ran the order; REFUSED gathered its approvals but the
 * order was refused then (the instance changed meanwhile); REJECTED and EXPIRED never ran.
 */
export const APPROVAL_STATES = ['PENDING', 'EXECUTED', 'REFUSED', 'REJECTED', 'EXPIRED'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export interface ApprovalVote {
  readonly by: string;
  /** Epoch milliseconds. */
  readonly at: number;
}

/** An order held for approvals; `order` is its kind, `request` what it takes to submit it again. */
export interface PendingApproval<Request = unknown> {
  readonly approvalId: string;
  readonly project: string;
  readonly compositionId: string;
  readonly instanceId: string;
  readonly order: ApprovalOrder;
  readonly request: Request;
  readonly orderedBy: string;
  readonly orderedAt: number;
  readonly required: number;
  readonly role: Role;
  readonly approvals: readonly ApprovalVote[];
  readonly expiresAt: number;
  readonly state: ApprovalState;
  /** Who rejected, or why the order was refused when it ran; null otherwise. */
  readonly closedBy: string | null;
  readonly closedAt: number | null;
  readonly reason: string | null;
  /** Bumped on every change, so that two approvals at once cannot both count (the store compares it). */
  readonly version: number;
}

/** The order the rule holds, as a new approval waiting from `now`. */
export function openApproval<Request>(
  rule: ApprovalRule,
  order: {
    readonly approvalId: string;
    readonly compositionId: string;
    readonly instanceId: string;
    readonly order: ApprovalOrder;
    readonly request: Request;
    readonly orderedBy: string;
  },
  now: number,
): PendingApproval<Request> {
  return {
    ...order,
    project: rule.project,
    orderedAt: now,
    required: rule.approvals,
    role: rule.role,
    approvals: [],
    expiresAt: now + rule.expiresAfterMs,
    state: 'PENDING',
    closedBy: null,
    closedAt: null,
    reason: null,
    version: 0,
  };
}

/** The approval EXPIRED when its time has come and it still waits; null when it does not change. */
export function expireIfDue<Request>(approval: PendingApproval<Request>, now: number): PendingApproval<Request> | null {
  if (approval.state !== 'PENDING' || now < approval.expiresAt) {
    return null;
  }
  return {
    ...approval,
    state: 'EXPIRED',
    closedAt: approval.expiresAt,
    reason: `${approval.approvals.length} of ${approval.required} approvals when its time ran out`,
    version: approval.version + 1,
  };
}

/** Who approves or rejects: the user, and the highest role it holds in the approval's project (null: none). */
export interface ApprovalCaller {
  readonly user: string;
  readonly role: Role | null;
}

/**
 * One approval more, or the refusal: FORBIDDEN when the caller lacks the rule's role there, APPROVAL_REFUSED (409)
 * for the orderer, a second approval by the same user, or an approval that no longer waits (expired on time even if
 * no sweep marked it). `complete`: the last approval needed has arrived, and the order is to be submitted.
 */
export function approve<Request>(
  approval: PendingApproval<Request>,
  caller: ApprovalCaller,
  now: number,
): { approval: PendingApproval<Request>; complete: boolean } {
  assertMayDecide(approval, caller, now, 'approve');
  if (caller.user === approval.orderedBy) {
    throw refused(approval, `${caller.user} gave the order and cannot approve it`);
  }
  if (approval.approvals.some((vote) => vote.by === caller.user)) {
    throw refused(approval, `${caller.user} has already approved it`);
  }
  const approvals = [...approval.approvals, { by: caller.user, at: now }];
  return {
    approval: { ...approval, approvals, version: approval.version + 1 },
    complete: approvals.length >= approval.required,
  };
}

/** The approval REJECTED with the caller's reason (the orderer may withdraw its own order this way). */
export function reject<Request>(
  approval: PendingApproval<Request>,
  caller: ApprovalCaller,
  reason: string,
  now: number,
): PendingApproval<Request> {
  if (caller.user !== approval.orderedBy) {
    assertMayDecide(approval, caller, now, 'reject');
  } else {
    assertPending(approval, now);
  }
  return {
    ...approval,
    state: 'REJECTED',
    closedBy: caller.user,
    closedAt: now,
    reason,
    version: approval.version + 1,
  };
}

/** The approval after its order ran: EXECUTED, or REFUSED with why when the order was refused then. */
export function closeApproval<Request>(
  approval: PendingApproval<Request>,
  refusal: string | null,
  now: number,
): PendingApproval<Request> {
  return {
    ...approval,
    state: refusal === null ? 'EXECUTED' : 'REFUSED',
    closedAt: now,
    reason: refusal,
    version: approval.version + 1,
  };
}

function assertMayDecide(approval: PendingApproval, caller: ApprovalCaller, now: number, verb: string): void {
  if (caller.role === null || !roleIncludes(caller.role, approval.role)) {
    const has = caller.role === null ? 'no role there' : `the role ${caller.role}`;
    throw new DomainError(
      'FORBIDDEN',
      `Forbidden: to ${verb} approval ${approval.approvalId} needs the role ${approval.role} in project ` +
        `${approval.project}; ${caller.user} has ${has}`,
      { approvalId: approval.approvalId, role: approval.role, project: approval.project },
    );
  }
  assertPending(approval, now);
}

function assertPending(approval: PendingApproval, now: number): void {
  if (approval.state !== 'PENDING') {
    throw refused(approval, `it is ${approval.state}${approval.reason === null ? '' : ` (${approval.reason})`}`);
  }
  if (approval.approvals.length >= approval.required) {
    // Its last approval is submitting the order right now: neither another approval nor a rejection may count.
    throw refused(approval, 'it has all its approvals; its order is being submitted');
  }
  if (now >= approval.expiresAt) {
    throw refused(approval, 'it is EXPIRED (its time ran out)');
  }
}

function refused(approval: PendingApproval, why: string): DomainError {
  return new DomainError('APPROVAL_REFUSED', `Approval ${approval.approvalId} of ${approval.order}: ${why}`, {
    approvalId: approval.approvalId,
    state: approval.state,
  });
}

function lineText(line: number | null): string {
  return line === null ? '' : ` line ${line}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
