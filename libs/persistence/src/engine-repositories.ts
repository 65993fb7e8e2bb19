import type {
  Actor,
  EventRepository,
  GateState,
  HistoryEventBody,
  MessageAnswer,
  MessageRecord,
  Operation,
  OperationEvent,
  OperationRepository,
  PhaseMessageRecord,
  OutboxRecord,
  OutboxRepository,
  RollbackRepository,
  RollbackSnapshot,
  SlotWait,
  StoredEvent,
} from '@acm/domain';
import { operationFromRecord } from '@acm/domain';
import type { EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from './prepared-query';

export interface OperationRow {
  operation_id: string;
  target_kind: string;
  target_id: string;
  order_name: string;
  state: Operation['state'];
  timed_out: boolean;
  phase: number | null;
  started_at: Date;
  deadline_at: Date;
  finished_at: Date | null;
  progress_at: Date;
  resent: number;
  paused_at: Date | null;
  paused_ms: string | number;
  retried: number;
  retry_at: Date | null;
  in_flight: number;
  slot_wait: string | null;
  due_at: Date | null;
  gates: Record<string, GateState> | null;
  /** The elements a heal re-applies; NULL for any other operation. Written once, at insert. */
  heal: string[] | null;
}

export const OPERATION_COLUMNS =
  'operation_id, target_kind, target_id, order_name, state, timed_out, phase, started_at, deadline_at, finished_at, ' +
  'progress_at, resent, paused_at, paused_ms, retried, retry_at, in_flight, slot_wait, due_at, gates, heal';

/** The columns of an operation row as `jsonb_to_recordset` reads them. */
export const OPERATION_RECORD =
  'operation_id uuid, target_kind text, target_id uuid, order_name text, state text, timed_out boolean, ' +
  'phase integer, started_at timestamptz, deadline_at timestamptz, finished_at timestamptz, ' +
  'progress_at timestamptz, resent integer, paused_at timestamptz, paused_ms bigint, retried integer, ' +
  'retry_at timestamptz, in_flight integer, slot_wait text, due_at timestamptz, gates jsonb, heal jsonb';

function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : new Date(epochMs).toISOString();
}

/** An operation as one record of `jsonb_to_recordset`, named as its columns. */
export function operationRecordOf(operation: Operation): Record<string, unknown> {
  const { control } = operation;
  return {
    operation_id: operation.operationId,
    target_kind: operation.targetKind,
    target_id: operation.targetId,
    order_name: operation.order,
    state: operation.state,
    timed_out: operation.timedOut,
    phase: operation.phase,
    started_at: new Date(operation.startedAt).toISOString(),
    deadline_at: new Date(operation.deadlineAt).toISOString(),
    finished_at: isoOrNull(operation.finishedAt),
    progress_at: new Date(control.progressAt).toISOString(),
    resent: control.resent,
    paused_at: isoOrNull(control.pausedAt),
    paused_ms: control.pausedMs,
    retried: control.retried,
    retry_at: isoOrNull(control.retryAt),
    in_flight: control.inFlight,
    slot_wait: control.slotWait,
    due_at: isoOrNull(control.dueAt),
    gates: gatesValue(control.gates),
    heal: healOf(operation),
  };
}

/** The heal column: the healed elements of a heal, NULL for every other operation. */
function healOf(operation: Operation): readonly string[] | null {
  return operation.targetKind === 'INSTANCE' && operation.heal !== undefined ? operation.heal : null;
}

function epochOrNull(date: Date | null): number | null {
  return date === null ? null : new Date(date).getTime();
}

export function operationOf(row: OperationRow): Operation {
  return operationFromRecord({
    operationId: row.operation_id,
    targetKind: row.target_kind,
    targetId: row.target_id,
    order: row.order_name,
    state: row.state,
    timedOut: row.timed_out,
    phase: row.phase,
    startedAt: new Date(row.started_at).getTime(),
    deadlineAt: new Date(row.deadline_at).getTime(),
    finishedAt: epochOrNull(row.finished_at),
    heal: row.heal,
    control: {
      progressAt: new Date(row.progress_at).getTime(),
      resent: row.resent,
      pausedAt: epochOrNull(row.paused_at),
      pausedMs: Number(row.paused_ms),
      retried: row.retried,
      retryAt: epochOrNull(row.retry_at),
      inFlight: row.in_flight,
      slotWait: slotWaitOf(row.slot_wait),
      dueAt: epochOrNull(row.due_at),
      ...(row.gates !== null && Object.keys(row.gates).length > 0 ? { gates: row.gates } : {}),
    },
  });
}

function gatesJson(gates: Readonly<Record<string, GateState>> | undefined): string | null {
  const value = gatesValue(gates);
  return value === null ? null : JSON.stringify(value);
}

/** The gates column: NULL when no gate waits, so operations without gates write what they always wrote. */
function gatesValue(
  gates: Readonly<Record<string, GateState>> | undefined,
): Readonly<Record<string, GateState>> | null {
  return gates !== undefined && Object.keys(gates).length > 0 ? gates : null;
}

const SLOT_WAITS: ReadonlySet<string> = new Set<SlotWait>(['FIRST_PHASE', 'PHASE', 'ELEMENTS']);

function slotWaitOf(value: string | null): SlotWait | null {
  return value !== null && SLOT_WAITS.has(value) ? (value as SlotWait) : null;
}

/** The runtime-wide parallelism lock (pg_advisory_xact_lock's two-key form): one per schema, so per runtime. */
const SLOTS_LOCK_CLASS = 0x41434d50; // "ACMP"

function dateOrNull(epochMs: number | null): Date | null {
  return epochMs === null ? null : new Date(epochMs);
}

function controlValues(operation: Operation): unknown[] {
  const { control } = operation;
  return [
    new Date(control.progressAt),
    control.resent,
    dateOrNull(control.pausedAt),
    control.pausedMs,
    control.retried,
    dateOrNull(control.retryAt),
    control.inFlight,
    control.slotWait,
    dateOrNull(control.dueAt),
    gatesJson(control.gates),
  ];
}

export class SqlOperationRepository implements OperationRepository {
  constructor(private readonly manager: EntityManager) {}

  async insert(operation: Operation): Promise<void> {
    await this.manager.query(
      `INSERT INTO acm_operation (${OPERATION_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20::jsonb,
         $21::jsonb)`,
      [
        operation.operationId,
        operation.targetKind,
        operation.targetId,
        operation.order,
        operation.state,
        operation.timedOut,
        operation.phase,
        new Date(operation.startedAt),
        new Date(operation.deadlineAt),
        dateOrNull(operation.finishedAt),
        ...controlValues(operation),
        JSON.stringify(healOf(operation)),
      ],
    );
  }

  async update(operation: Operation): Promise<void> {
    await this.manager.query(
      `UPDATE acm_operation SET state = $2, timed_out = $3, phase = $4, deadline_at = $5, finished_at = $6,
         progress_at = $7, resent = $8, paused_at = $9, paused_ms = $10, retried = $11, retry_at = $12,
         in_flight = $13, slot_wait = $14, due_at = $15, gates = $16::jsonb
       WHERE operation_id = $1`,
      [
        operation.operationId,
        operation.state,
        operation.timedOut,
        operation.phase,
        new Date(operation.deadlineAt),
        dateOrNull(operation.finishedAt),
        ...controlValues(operation),
      ],
    );
  }

  async find(operationId: string): Promise<Operation | null> {
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation WHERE operation_id = $1`,
      [operationId],
    );
    return rows[0] ? operationOf(rows[0]) : null;
  }

  async findRunning(targetId: string): Promise<Operation | null> {
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation WHERE target_id = $1 AND state = 'RUNNING'`,
      [targetId],
    );
    return rows[0] ? operationOf(rows[0]) : null;
  }

  async findManyRunning(targetIds: readonly string[]): Promise<Map<string, Operation>> {
    if (targetIds.length === 0) {
      return new Map();
    }
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation WHERE target_id = ANY($1::uuid[]) AND state = 'RUNNING'`,
      [[...new Set(targetIds)]],
    );
    return new Map(rows.map((row) => [row.target_id, operationOf(row)]));
  }

  /** One `UPDATE … FROM jsonb_to_recordset` for the known operations, then one `INSERT` for the new ones. */
  async saveMany(operations: ReadonlyArray<{ readonly operation: Operation; readonly isNew: boolean }>): Promise<void> {
    const updated = operations.filter((entry) => !entry.isNew).map((entry) => entry.operation);
    const inserted = operations.filter((entry) => entry.isNew).map((entry) => entry.operation);
    if (updated.length > 0) {
      await this.manager.query(
        `UPDATE acm_operation AS o SET state = x.state, timed_out = x.timed_out, phase = x.phase,
           deadline_at = x.deadline_at, finished_at = x.finished_at, progress_at = x.progress_at, resent = x.resent,
           paused_at = x.paused_at, paused_ms = x.paused_ms, retried = x.retried, retry_at = x.retry_at,
           in_flight = x.in_flight, slot_wait = x.slot_wait, due_at = x.due_at, gates = x.gates
         FROM jsonb_to_recordset($1::jsonb) AS x(${OPERATION_RECORD})
         WHERE o.operation_id = x.operation_id`,
        [JSON.stringify(updated.map(operationRecordOf))],
      );
    }
    if (inserted.length > 0) {
      await this.manager.query(
        `INSERT INTO acm_operation (${OPERATION_COLUMNS})
         SELECT ${OPERATION_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS x(${OPERATION_RECORD})`,
        [JSON.stringify(inserted.map(operationRecordOf))],
      );
    }
  }

  async recordMessage(
    messageId: string,
    operationId: string,
    phase: number | null,
    elementIds: readonly string[] | null = null,
  ): Promise<void> {
    await this.manager.query(
      `INSERT INTO acm_operation_message (message_id, operation_id, phase, element_ids) VALUES ($1, $2, $3, $4)`,
      [messageId, operationId, phase, elementIds === null ? null : JSON.stringify(elementIds)],
    );
  }

  async recordMessages(messages: readonly MessageRecord[]): Promise<void> {
    if (messages.length === 0) {
      return;
    }
    await this.manager.query(
      `INSERT INTO acm_operation_message (message_id, operation_id, phase, element_ids)
       SELECT message_id, operation_id, phase, element_ids
       FROM jsonb_to_recordset($1::jsonb) AS x(message_id uuid, operation_id uuid, phase integer, element_ids jsonb)`,
      [
        JSON.stringify(
          messages.map((message) => ({
            message_id: message.messageId,
            operation_id: message.operationId,
            phase: message.phase,
            element_ids: message.elementIds,
          })),
        ),
      ],
    );
  }

  async findManyByMessage(
    messageIds: readonly string[],
  ): Promise<Map<string, { operation: Operation; phase: number | null }>> {
    if (messageIds.length === 0) {
      return new Map();
    }
    const rows: Array<OperationRow & { message_id: string; message_phase: number | null }> = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS.split(', ')
        .map((column) => `o.${column}`)
        .join(', ')}, m.message_id, m.phase AS message_phase
       FROM acm_operation_message m JOIN acm_operation o ON o.operation_id = m.operation_id
       WHERE m.message_id = ANY($1::uuid[])`,
      [[...new Set(messageIds)]],
    );
    return new Map(rows.map((row) => [row.message_id, { operation: operationOf(row), phase: row.message_phase }]));
  }

  async findByMessage(messageId: string): Promise<{ operation: Operation; phase: number | null } | null> {
    const rows: Array<OperationRow & { message_phase: number | null }> = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS.split(', ')
        .map((column) => `o.${column}`)
        .join(', ')}, m.phase AS message_phase
       FROM acm_operation_message m JOIN acm_operation o ON o.operation_id = m.operation_id
       WHERE m.message_id = $1`,
      [messageId],
    );
    const row = rows[0];
    return row ? { operation: operationOf(row), phase: row.message_phase } : null;
  }

  async recordAnswer(messageId: string, participantId: string, replicaId: string): Promise<void> {
    await this.manager.query(
      `INSERT INTO acm_message_answer (message_id, participant_id, replica_id) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [messageId, participantId, replicaId],
    );
  }

  async recordAnswers(answers: readonly MessageAnswer[]): Promise<void> {
    if (answers.length === 0) {
      return;
    }
    await this.manager.query(
      `INSERT INTO acm_message_answer (message_id, participant_id, replica_id)
       SELECT message_id, participant_id, replica_id
       FROM jsonb_to_recordset($1::jsonb) AS x(message_id uuid, participant_id text, replica_id text)
       ON CONFLICT DO NOTHING`,
      [
        JSON.stringify(
          answers.map((answer) => ({
            message_id: answer.messageId,
            participant_id: answer.participantId,
            replica_id: answer.replicaId,
          })),
        ),
      ],
    );
  }

  async phaseMessages(operationId: string, phase: number | null): Promise<PhaseMessageRecord[]> {
    const rows: Array<{
      message_id: string;
      element_ids: string[] | null;
      answers: Array<{ participantId: string; replicaId: string }>;
    }> = await this.manager.query(
      `SELECT m.message_id, m.element_ids,
                COALESCE(json_agg(json_build_object('participantId', a.participant_id, 'replicaId', a.replica_id))
                  FILTER (WHERE a.replica_id IS NOT NULL), '[]') AS answers
         FROM acm_operation_message m LEFT JOIN acm_message_answer a ON a.message_id = m.message_id
         WHERE m.operation_id = $1 AND m.phase IS NOT DISTINCT FROM $2
         GROUP BY m.message_id`,
      [operationId, phase],
    );
    return rows.map((row) => ({ messageId: row.message_id, elementIds: row.element_ids, answeredBy: row.answers }));
  }

  async workers(replicaIds: readonly string[]): Promise<Set<string>> {
    if (replicaIds.length === 0) {
      return new Set();
    }
    const rows: Array<{ replica_id: string }> = await this.manager.query(
      `SELECT DISTINCT replica_id FROM acm_message_answer WHERE replica_id = ANY($1::text[])`,
      [replicaIds],
    );
    return new Set(rows.map((row) => row.replica_id));
  }

  async recordProbe(participantId: string, at: number): Promise<void> {
    await this.manager.query(
      `INSERT INTO acm_participant_probe (participant_id, probed_at) VALUES ($1, $2)
       ON CONFLICT (participant_id) DO UPDATE SET probed_at = GREATEST(acm_participant_probe.probed_at, EXCLUDED.probed_at)`,
      [participantId, new Date(at)],
    );
  }

  async takeProbes(before: number): Promise<Array<{ participantId: string; probedAt: number }>> {
    const [rows]: [Array<{ participant_id: string; probed_at: Date }>, number] = await this.manager.query(
      `DELETE FROM acm_participant_probe WHERE probed_at < $1 RETURNING participant_id, probed_at`,
      [new Date(before)],
    );
    return rows.map((row) => ({ participantId: row.participant_id, probedAt: new Date(row.probed_at).getTime() }));
  }

  async findOverdue(now: number, limit: number): Promise<Operation[]> {
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation
       WHERE state = 'RUNNING' AND NOT timed_out AND deadline_at < $1 AND paused_at IS NULL
       ORDER BY deadline_at LIMIT $2`,
      [new Date(now), limit],
    );
    return rows.map(operationOf);
  }

  async listRunning(limit: number): Promise<Operation[]> {
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation WHERE state = 'RUNNING' ORDER BY progress_at, operation_id LIMIT $1`,
      [limit],
    );
    return rows.map(operationOf);
  }

  async listDue(limit: number): Promise<Operation[]> {
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation
       WHERE state = 'RUNNING' AND due_at IS NOT NULL
       ORDER BY due_at, operation_id LIMIT $1`,
      [limit],
    );
    return rows.map(operationOf);
  }

  async lockSlots(): Promise<void> {
    await this.manager.query(`SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))`, [SLOTS_LOCK_CLASS]);
  }

  async slotsInUse(): Promise<number> {
    const rows: Array<{ used: string | number }> = await this.manager.query(
      `SELECT coalesce(sum(in_flight), 0) AS used FROM acm_operation WHERE state = 'RUNNING'`,
    );
    return Number(rows[0]?.used ?? 0);
  }

  async listSlotWaiting(limit: number): Promise<Operation[]> {
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation
       WHERE state = 'RUNNING' AND slot_wait IS NOT NULL AND paused_at IS NULL
       ORDER BY started_at, operation_id LIMIT $1`,
      [limit],
    );
    return rows.map(operationOf);
  }

  async history(targetId: string, limit: number): Promise<Operation[]> {
    const rows: OperationRow[] = await this.manager.query(
      `SELECT ${OPERATION_COLUMNS} FROM acm_operation WHERE target_id = $1 ORDER BY started_at DESC LIMIT $2`,
      [targetId, limit],
    );
    return rows.map(operationOf);
  }
}

/** An outbox row as written: what the relay publishes and then deletes. */
export interface QueuedRecord {
  readonly id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly value: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export class SqlOutboxRepository implements OutboxRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly onWrite: (records: readonly QueuedRecord[]) => void,
  ) {}

  async add(records: readonly OutboxRecord[]): Promise<void> {
    if (records.length === 0) {
      return;
    }
    const rows: Array<{ id: string }> = await this.manager.query(
      `INSERT INTO acm_outbox (topic, message_key, payload, trace_context)
       SELECT e->>'topic', e->>'message_key', e->>'payload', NULLIF(e->'trace_context', 'null'::jsonb)
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(e, n)
       ORDER BY n RETURNING id`,
      [
        JSON.stringify(
          records.map((record) => ({
            topic: record.topic,
            message_key: record.key,
            payload: record.value,
            trace_context: record.headers ?? null,
          })),
        ),
      ],
    );
    // bigserial ids follow the insertion order, which follows the records' order.
    const ids = rows
      .map((row) => String(row.id))
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
    this.onWrite(records.map((record, index) => ({ id: ids[index] ?? '', ...record })));
  }
}

export class SqlEventRepository implements EventRepository {
  /** `onWrite` receives the rows as stored (with their sequence), so live views can follow the history. */
  constructor(
    private readonly manager: EntityManager,
    private readonly onWrite: (events: readonly StoredEvent[]) => void = () => undefined,
  ) {}

  async append(events: readonly OperationEvent[]): Promise<void> {
    if (events.length === 0) {
      return;
    }
    const rows: EventRow[] = await this.manager.query(
      `INSERT INTO acm_event (subject_id, operation_id, event, detail, actor, at)
       SELECT subject_id, operation_id, event, detail, actor, at
       FROM jsonb_to_recordset($1::jsonb)
         AS x(subject_id uuid, operation_id uuid, event text, detail jsonb, actor jsonb, at timestamptz)
       RETURNING sequence, subject_id, operation_id, event, detail, actor, at`,
      [JSON.stringify(events.map(eventRecordOf))],
    );
    this.onWrite(rows.map(storedEvent).sort((a, b) => a.sequence - b.sequence));
  }

  async list(subjectId: string, limit: number): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.manager.query(
      `SELECT sequence, subject_id, operation_id, event, detail, actor, at FROM acm_event
       WHERE subject_id = $1 ORDER BY sequence LIMIT $2`,
      [subjectId, limit],
    );
    return rows.map(storedEvent);
  }
}

/** A row of acm_event as read: `event` and `detail` are the history union's, as the runtime wrote them. */
export interface EventRow {
  sequence: string;
  subject_id: string;
  operation_id: string | null;
  event: HistoryEventBody['event'];
  detail: HistoryEventBody['detail'];
  actor: Actor;
  at: Date;
}

export const storedEvent = (row: EventRow): StoredEvent =>
  ({
    sequence: Number(row.sequence),
    subjectId: row.subject_id,
    operationId: row.operation_id,
    event: row.event,
    detail: row.detail,
    actor: row.actor,
    at: new Date(row.at).getTime(),
  }) as StoredEvent;

/** An event as the jsonb_to_recordset of the history's inserts reads it. */
export const eventRecordOf = (event: OperationEvent) => ({
  subject_id: event.subjectId,
  operation_id: event.operationId,
  event: event.event,
  detail: event.detail,
  actor: event.actor,
  at: new Date(event.at).toISOString(),
});

export class SqlRollbackRepository implements RollbackRepository {
  constructor(private readonly manager: EntityManager) {}

  async save(snapshot: RollbackSnapshot): Promise<void> {
    await this.manager.query(
      `INSERT INTO automation_composition_rollback (instance_id, composition_id, elements, created_at)
       VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (instance_id) DO UPDATE SET
         composition_id = EXCLUDED.composition_id, elements = EXCLUDED.elements, created_at = EXCLUDED.created_at`,
      [snapshot.instanceId, snapshot.compositionId, JSON.stringify(snapshot.elements), new Date(snapshot.createdAt)],
    );
  }

  async find(instanceId: string): Promise<RollbackSnapshot | null> {
    const rows: Array<{
      instance_id: string;
      composition_id: string;
      elements: RollbackSnapshot['elements'];
      created_at: Date;
    }> = await this.manager.query(
      `SELECT instance_id, composition_id, elements, created_at FROM automation_composition_rollback
       WHERE instance_id = $1`,
      [instanceId],
    );
    const row = rows[0];
    return row
      ? {
          instanceId: row.instance_id,
          compositionId: row.composition_id,
          elements: row.elements,
          createdAt: new Date(row.created_at).getTime(),
        }
      : null;
  }
}

/** A relay's view of the outbox: claim the oldest rows (SKIP LOCKED, so replicas share), then delete them once sent. */
export async function claimOutbox(manager: EntityManager, limit: number): Promise<QueuedRecord[]> {
  const rows: Array<{
    id: string;
    topic: string;
    message_key: string | null;
    payload: string;
    trace_context: Record<string, string> | null;
  }> = await manager.query(
    `SELECT id, topic, message_key, payload, trace_context FROM acm_outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows.map((row) => ({
    id: row.id,
    topic: row.topic,
    key: row.message_key,
    value: row.payload,
    ...(row.trace_context === null ? {} : { headers: row.trace_context }),
  }));
}

const DELETE_OUTBOX = preparedStatement(`DELETE FROM acm_outbox WHERE id = ANY($1::bigint[])`);

/** After every publish of the relay, so a statement of its own on the hot path. */
export async function deleteOutbox(manager: EntityManager, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) {
    await runPrepared(manager, DELETE_OUTBOX, [ids]);
  }
}
