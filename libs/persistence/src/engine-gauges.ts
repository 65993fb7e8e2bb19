import type { DataSource } from 'typeorm';

/** What the runtime's gauges report, read from the tables so every replica reports the same whole picture. */
export interface EngineGauges {
  /** Running operations, by order. */
  readonly operationsRunning: ReadonlyArray<{ readonly order: string; readonly count: number }>;
  /** Elements in a transitional state (an order is acting on them), by that state. */
  readonly elementsInFlight: ReadonlyArray<{ readonly state: string; readonly count: number }>;
  /** Outbox rows not yet acknowledged by the broker. */
  readonly outboxBacklog: number;
  /** Participants, ON_LINE when one of their replicas is, else OFF_LINE. */
  readonly participants: ReadonlyArray<{ readonly state: string; readonly count: number }>;
  /** Participant replicas, by state. */
  readonly replicas: ReadonlyArray<{ readonly state: string; readonly count: number }>;
}

const TRANSITIONAL_DEPLOY_STATES = [
  'DEPLOYING',
  'UNDEPLOYING',
  'UPDATING',
  'MIGRATING',
  'DELETING',
  'MIGRATION_REVERTING',
  'UPDATE_REVERTING',
];
const TRANSITIONAL_LOCK_STATES = ['LOCKING', 'UNLOCKING'];

/** Reads every gauge in one round trip per table; small aggregate queries on indexed or small tables. */
export async function readEngineGauges(dataSource: DataSource): Promise<EngineGauges> {
  const counted = (rows: Array<{ label: string; count: string }>): Array<{ state: string; count: number }> =>
    rows.map((row) => ({ state: row.label, count: Number(row.count) }));
  const operations: Array<{ label: string; count: string }> = await dataSource.query(
    `SELECT order_name AS label, count(*) AS count FROM acm_operation WHERE state = 'RUNNING' GROUP BY order_name`,
  );
  const elements: Array<{ label: string; count: string }> = await dataSource.query(
    `SELECT CASE WHEN deploy_state = ANY($1::text[]) THEN deploy_state
                 WHEN lock_state = ANY($2::text[]) THEN lock_state ELSE sub_state END AS label,
            count(*) AS count
     FROM automation_composition_element
     WHERE deploy_state = ANY($1::text[]) OR lock_state = ANY($2::text[]) OR sub_state <> 'NONE'
     GROUP BY 1`,
    [TRANSITIONAL_DEPLOY_STATES, TRANSITIONAL_LOCK_STATES],
  );
  const [outbox]: Array<{ count: string }> = await dataSource.query(`SELECT count(*) AS count FROM acm_outbox`);
  const participants: Array<{ label: string; count: string }> = await dataSource.query(
    `SELECT label, count(*) AS count FROM (
       SELECT CASE WHEN bool_or(participant_state = 'ON_LINE') THEN 'ON_LINE' ELSE 'OFF_LINE' END AS label
       FROM participant p LEFT JOIN participant_replica r ON r.participant_id = p.participant_id
       GROUP BY p.participant_id) AS states
     GROUP BY label`,
  );
  const replicas: Array<{ label: string; count: string }> = await dataSource.query(
    `SELECT participant_state AS label, count(*) AS count FROM participant_replica GROUP BY participant_state`,
  );
  return {
    operationsRunning: counted(operations).map(({ state, count }) => ({ order: state, count })),
    elementsInFlight: counted(elements),
    outboxBacklog: Number(outbox?.count ?? 0),
    participants: counted(participants),
    replicas: counted(replicas),
  };
}
