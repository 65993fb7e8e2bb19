import type {
  CompositionDefinition,
  DefinitionRepository,
  EventRepository,
  InstanceRepository,
  ContextQuery,
  OperationRepository,
  OutboxRepository,
  Participant,
  ParticipantRepository,
  RollbackRepository,
  Store,
  StoreContext,
  StoreWrites,
  StoredEvent,
  Versioned,
} from '@acm/domain';
import type { EntityManager } from 'typeorm';
import {
  OPERATION_COLUMNS,
  OPERATION_RECORD,
  SqlEventRepository,
  SqlOperationRepository,
  SqlOutboxRepository,
  SqlRollbackRepository,
  eventRecordOf,
  operationOf,
  operationRecordOf,
  storedEvent,
} from './engine-repositories';
import type { EventRow, OperationRow, QueuedRecord } from './engine-repositories';
import { CompositionDefinitionEntity } from './entities/composition-definition.entity';
import {
  ParticipantEntity,
  ParticipantReplicaEntity,
  ParticipantSupportedElementEntity,
} from './entities/participant.entity';
import { definitionToDomain } from './mappers/definition.mapper';
import { participantToDomain } from './mappers/participant.mapper';
import { preparedStatement, runPrepared } from './prepared-query';
import { TypeOrmDefinitionRepository } from './typeorm/definition-repository';
import type { PreparedUpdates } from './typeorm/instance-repository';
import { instanceUpdateCtes, TypeOrmInstanceRepository } from './typeorm/instance-repository';
import { TypeOrmParticipantRepository } from './typeorm/participant-repository';
import type { CachedDefinition } from './typeorm/definition-cache';
import { DefinitionCache } from './typeorm/definition-cache';

/** The repositories bound to one EntityManager: the data source's, or a transaction's. */
export class TypeOrmStore implements Store {
  readonly definitions: DefinitionRepository;
  readonly instances: InstanceRepository;
  readonly participants: ParticipantRepository;
  readonly operations: OperationRepository;
  readonly rollbacks: RollbackRepository;
  readonly outbox: OutboxRepository;
  readonly events: EventRepository;
  private readonly instanceRepository: TypeOrmInstanceRepository;

  /**
   * `onOutboxWrite` receives the rows this store queued, so the relay can send them as soon as they commit;
   * `onEventsWrite` the history rows it appended.
   */
  constructor(
    private readonly manager: EntityManager,
    private readonly onOutboxWrite: (records: readonly QueuedRecord[]) => void = () => undefined,
    private readonly onEventsWrite: (events: readonly StoredEvent[]) => void = () => undefined,
    private readonly definitionCache: DefinitionCache = new DefinitionCache(),
  ) {
    this.definitions = new TypeOrmDefinitionRepository(manager);
    this.instanceRepository = new TypeOrmInstanceRepository(manager);
    this.instances = this.instanceRepository;
    this.participants = new TypeOrmParticipantRepository(manager);
    this.operations = new SqlOperationRepository(manager);
    this.rollbacks = new SqlRollbackRepository(manager);
    this.outbox = new SqlOutboxRepository(manager, onOutboxWrite);
    this.events = new SqlEventRepository(manager, onEventsWrite);
  }

  async saveAll(writes: StoreWrites): Promise<void> {
    const prepared = this.instanceRepository.prepareUpdates(writes.instances);
    const nothing =
      prepared.count === 0 &&
      writes.operations.length === 0 &&
      writes.messages.length === 0 &&
      writes.answers.length === 0 &&
      writes.outbox.length === 0 &&
      writes.events.length === 0;
    if (nothing) {
      return;
    }
    const [row] = await saveAllStatement(this.manager, prepared, writes);
    await prepared.finish(row?.updated ?? []);
    const ids = (row?.outbox_ids ?? []).map(String);
    if (writes.outbox.length > 0) {
      this.onOutboxWrite(writes.outbox.map((record, index) => ({ id: ids[index] ?? '', ...record })));
    }
    if (writes.events.length > 0) {
      this.onEventsWrite((row?.events ?? []).map(storedEvent).sort((a, b) => a.sequence - b.sequence));
    }
  }

  async readContext(query: ContextQuery): Promise<StoreContext> {
    const runningOf = [...new Set(query.runningOf)];
    const definitions = [...new Set(query.definitions)];
    const messages = [...new Set(query.messages)];
    if (runningOf.length + definitions.length + messages.length === 0 && !query.participants) {
      return { running: new Map(), definitions: new Map(), answered: new Map(), participants: null };
    }
    // The entries whose keys are sent are the ones the answer is matched against, whatever is cached meanwhile.
    const known = this.definitionCache.held(definitions);
    const [row] = await readContextStatement(this.manager, runningOf, definitions, known, messages, query.participants);
    return {
      running: new Map((row?.running ?? []).map((operation) => [operation.target_id, operationOf(operation)])),
      definitions: new Map(
        (row?.definitions ?? []).map((definition) => [definition.composition_id, this.definitionOf(definition, known)]),
      ),
      answered: new Map(
        (row?.answered ?? []).map((answer) => [
          answer.message_id,
          { operation: operationOf(answer), phase: answer.message_phase },
        ]),
      ),
      participants: query.participants ? (row?.participants ?? []).map(participantRowToDomain) : null,
    };
  }

  /** A definition row of `readContext`: the held value when the database said it is that one, else the row. */
  private definitionOf(
    row: DefinitionJson,
    known: ReadonlyMap<string, CachedDefinition>,
  ): Versioned<CompositionDefinition> {
    const key = `${row.row_key}:${row.row_version}`;
    const held = known.get(row.composition_id);
    // The template is left out only for a key that was sent, and that key is `held`'s.
    if (row.service_template === null && held?.key === key) {
      return held.value;
    }
    const value = { value: definitionToDomain(definitionRowToEntity(row)), version: row.row_version };
    this.definitionCache.set(row.composition_id, key, value);
    return value;
  }
}

const SAVE_ALL = preparedStatement(
  `/* WITH saveAll */ WITH ${instanceUpdateCtes(1, 2)},
     ok AS (SELECT count(*) = $3::integer AS ok FROM updated),
     operations_updated AS (
       UPDATE acm_operation AS o SET state = x.state, timed_out = x.timed_out, phase = x.phase,
         deadline_at = x.deadline_at, finished_at = x.finished_at, progress_at = x.progress_at, resent = x.resent,
         paused_at = x.paused_at, paused_ms = x.paused_ms, retried = x.retried, retry_at = x.retry_at,
         in_flight = x.in_flight, slot_wait = x.slot_wait, due_at = x.due_at, gates = x.gates
       FROM jsonb_to_recordset($4::jsonb) AS x(${OPERATION_RECORD})
       WHERE o.operation_id = x.operation_id AND (SELECT ok FROM ok)
       RETURNING o.operation_id
     ), operations_inserted AS (
       INSERT INTO acm_operation (${OPERATION_COLUMNS})
       SELECT ${OPERATION_COLUMNS} FROM jsonb_to_recordset($5::jsonb) AS x(${OPERATION_RECORD})
       WHERE (SELECT ok FROM ok) AND (SELECT count(*) FROM operations_updated) >= 0
     ), messages AS (
       INSERT INTO acm_operation_message (message_id, operation_id, phase, element_ids)
       SELECT message_id, operation_id, phase, element_ids
       FROM jsonb_to_recordset($6::jsonb) AS x(message_id uuid, operation_id uuid, phase integer, element_ids jsonb)
       WHERE (SELECT ok FROM ok)
     ), answers AS (
       INSERT INTO acm_message_answer (message_id, participant_id, replica_id)
       SELECT message_id, participant_id, replica_id
       FROM jsonb_to_recordset($7::jsonb) AS x(message_id uuid, participant_id text, replica_id text)
       WHERE (SELECT ok FROM ok)
       ON CONFLICT DO NOTHING
     ), outbox AS (
       INSERT INTO acm_outbox (topic, message_key, payload, trace_context)
       SELECT e->>'topic', e->>'message_key', e->>'payload', NULLIF(e->'trace_context', 'null'::jsonb)
       FROM jsonb_array_elements($8::jsonb) WITH ORDINALITY AS x(e, n)
       WHERE (SELECT ok FROM ok)
       ORDER BY n RETURNING id
     ), events AS (
       INSERT INTO acm_event (subject_id, operation_id, event, detail, actor, at)
       SELECT subject_id, operation_id, event, detail, actor, at
       FROM jsonb_to_recordset($9::jsonb) AS x(subject_id uuid, operation_id uuid, event text, detail jsonb,
         actor jsonb, at timestamptz)
       WHERE (SELECT ok FROM ok)
       RETURNING sequence, subject_id, operation_id, event, detail, actor, at
     )
   SELECT (SELECT coalesce(json_agg(instance_id), '[]'::json) FROM updated) AS updated,
     (SELECT coalesce(json_agg(id::text ORDER BY id), '[]'::json) FROM outbox) AS outbox_ids,
     (SELECT coalesce(json_agg(json_build_object('sequence', sequence::text, 'subject_id', subject_id,
        'operation_id', operation_id, 'event', event, 'detail', detail, 'actor', actor, 'at', at)), '[]'::json)
        FROM events) AS events`,
);

/**
 * `Store.saveAll` as one statement: the instances and their elements (`instanceUpdateCtes`), then, only when every
 * instance was at its expected version (`ok`), the operations (updates before inserts, so one that stops running
 * makes room for its successor under `acm_operation_one_running`), message records, answers, outbox rows and
 * history events. Foreign keys between them (a message of an operation inserted by the same statement) are checked
 * at the end of the statement, so the order of the other CTEs does not matter.
 */
function saveAllStatement(
  manager: EntityManager,
  prepared: PreparedUpdates,
  writes: StoreWrites,
): Promise<Array<{ updated: string[]; outbox_ids: string[]; events: EventRow[] }>> {
  const updated = writes.operations.filter((entry) => !entry.isNew).map((entry) => entry.operation);
  const inserted = writes.operations.filter((entry) => entry.isNew).map((entry) => entry.operation);
  return runPrepared(manager, SAVE_ALL, [
    prepared.rows,
    prepared.elements,
    prepared.count,
    JSON.stringify(updated.map(operationRecordOf)),
    JSON.stringify(inserted.map(operationRecordOf)),
    JSON.stringify(
      writes.messages.map((message) => ({
        message_id: message.messageId,
        operation_id: message.operationId,
        phase: message.phase,
        element_ids: message.elementIds,
      })),
    ),
    JSON.stringify(
      writes.answers.map((answer) => ({
        message_id: answer.messageId,
        participant_id: answer.participantId,
        replica_id: answer.replicaId,
      })),
    ),
    JSON.stringify(
      writes.outbox.map((record) => ({
        topic: record.topic,
        message_key: record.key,
        payload: record.value,
        trace_context: record.headers ?? null,
      })),
    ),
    JSON.stringify(writes.events.map(eventRecordOf)),
  ]);
}

interface DefinitionJson {
  composition_id: string;
  name: string;
  version: string;
  /** Null when the row version is the one the caller holds (its key was sent). */
  service_template: Record<string, unknown> | null;
  state: string;
  state_change_result: string;
  last_msg: string;
  element_state_map: CompositionDefinitionEntity['elementStateMap'];
  revision_id: string;
  project: string;
  row_version: number;
  /** `xmin` of the row version: with `row_version`, the key of `DefinitionCache`. */
  row_key: string;
}

interface ParticipantJson {
  participant_id: string;
  types: Array<{ id: string; type_name: string; type_version: string }>;
  replicas: Array<{ replica_id: string; participant_state: string; last_msg: string }>;
}

function definitionRowToEntity(row: DefinitionJson): CompositionDefinitionEntity {
  const entity = new CompositionDefinitionEntity();
  entity.compositionId = row.composition_id;
  entity.name = row.name;
  entity.version = row.version;
  entity.serviceTemplate = row.service_template ?? {};
  entity.state = row.state;
  entity.stateChangeResult = row.state_change_result;
  entity.lastMsg = new Date(row.last_msg);
  entity.elementStateMap = row.element_state_map;
  entity.revisionId = row.revision_id;
  entity.project = row.project;
  entity.rowVersion = row.row_version;
  return entity;
}

function participantRowToDomain(row: ParticipantJson): Participant {
  const entity = new ParticipantEntity();
  entity.participantId = row.participant_id;
  entity.supportedElementTypes = row.types.map((type) => {
    const typeRow = new ParticipantSupportedElementEntity();
    typeRow.id = type.id;
    typeRow.participantId = row.participant_id;
    typeRow.typeName = type.type_name;
    typeRow.typeVersion = type.type_version;
    return typeRow;
  });
  entity.replicas = row.replicas.map((replica) => {
    const replicaRow = new ParticipantReplicaEntity();
    replicaRow.replicaId = replica.replica_id;
    replicaRow.participantId = row.participant_id;
    replicaRow.participantState = replica.participant_state;
    replicaRow.lastMsg = new Date(replica.last_msg);
    return replicaRow;
  });
  return participantToDomain(entity);
}

const OPERATION_COLUMNS_OF_O = OPERATION_COLUMNS.split(', ')
  .map((column) => `o.${column}`)
  .join(', ');

const READ_CONTEXT = preparedStatement(
  `/* SELECT readContext */ SELECT
     (SELECT coalesce(json_agg(r), '[]'::json) FROM (
        SELECT ${OPERATION_COLUMNS} FROM acm_operation WHERE target_id = ANY($1::uuid[]) AND state = 'RUNNING') r
     ) AS running,
     (SELECT coalesce(json_agg(d), '[]'::json) FROM (
        SELECT composition_id, name, version, state, state_change_result, last_msg, element_state_map,
          revision_id, project, row_version, xmin::text AS row_key,
          CASE WHEN $5::jsonb ->> composition_id::text = xmin::text || ':' || row_version THEN NULL
            ELSE service_template END AS service_template
        FROM composition_definition WHERE composition_id = ANY($2::uuid[])) d
     ) AS definitions,
     (SELECT coalesce(json_agg(a), '[]'::json) FROM (
        SELECT ${OPERATION_COLUMNS_OF_O}, m.message_id, m.phase AS message_phase
        FROM acm_operation_message m JOIN acm_operation o ON o.operation_id = m.operation_id
        WHERE m.message_id = ANY($3::uuid[])) a
     ) AS answered,
     (SELECT coalesce(json_agg(json_build_object('participant_id', p.participant_id,
        'types', (SELECT coalesce(json_agg(json_build_object('id', t.id, 'type_name', t.type_name,
                    'type_version', t.type_version)), '[]'::json)
                  FROM participant_supported_element t WHERE t.participant_id = p.participant_id),
        'replicas', (SELECT coalesce(json_agg(json_build_object('replica_id', r.replica_id,
                    'participant_state', r.participant_state, 'last_msg', r.last_msg)), '[]'::json)
                  FROM participant_replica r WHERE r.participant_id = p.participant_id))
        ORDER BY p.participant_id), '[]'::json)
      FROM participant p WHERE $4::boolean
     ) AS participants`,
);

/** `Store.readContext` as one statement of independent sub-selects, each empty when not asked for. */
function readContextStatement(
  manager: EntityManager,
  runningOf: readonly string[],
  definitions: readonly string[],
  known: ReadonlyMap<string, CachedDefinition>,
  messages: readonly string[],
  participants: boolean,
): Promise<
  Array<{
    running: OperationRow[];
    definitions: DefinitionJson[];
    answered: Array<OperationRow & { message_id: string; message_phase: number | null }>;
    participants: ParticipantJson[];
  }>
> {
  return runPrepared(manager, READ_CONTEXT, [
    runningOf,
    definitions,
    messages,
    participants,
    JSON.stringify(Object.fromEntries([...known].map(([id, entry]) => [id, entry.key]))),
  ]);
}
