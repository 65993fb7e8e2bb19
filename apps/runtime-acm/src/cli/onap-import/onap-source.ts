import type { OnapSchemaVerdict, OnapSnapshot } from '@acm/domain';
import { ONAP_CHANGELOG_TABLE, onapSchemaVersion } from '@acm/domain';
import { Client } from 'pg';

/** Why an ONAP database cannot be read at all (as opposed to a row that cannot be imported). */
export class OnapSourceError extends Error {
  override readonly name = 'OnapSourceError';
}

/** How long the import waits for ONAP's PostgreSQL to answer a connection. */
const CONNECT_TIMEOUT_MS = 5000;

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The URL without its password, for messages. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString().replace(/:@/, '@');
  } catch {
    return '(a URL that does not parse)';
  }
}

export interface OnapSource {
  /** postgres://user:password@host:port/database of ONAP's `clampacm`. */
  readonly url: string;
  /** The schema of ONAP's tables; default public. */
  readonly schema?: string;
}

export interface OnapRead {
  readonly verdict: OnapSchemaVerdict;
  /** Null when the schema was refused. */
  readonly snapshot: OnapSnapshot | null;
}

const QUERIES = {
  definitions: (s: string) => `
    SELECT compositionid AS "compositionId", name, version, servicetemplate AS "serviceTemplate", state,
           statechangeresult AS "stateChangeResult", floor(extract(epoch FROM lastmsg) * 1000)::float8 AS "lastMsg",
           revisionid AS "revisionId"
      FROM "${s}".automationcompositiondefinition ORDER BY compositionid`,
  nodeTemplateStates: (s: string) => `
    SELECT nodetemplatestateid AS "nodeTemplateStateId", compositionid AS "compositionId", message,
           nodetemplate_name AS "nodeTemplateName", nodetemplate_version AS "nodeTemplateVersion",
           outproperties AS "outProperties", participantid AS "participantId", state
      FROM "${s}".nodetemplatestate ORDER BY nodetemplatestateid`,
  instances: (s: string) => `
    SELECT instanceid AS "instanceId", compositionid AS "compositionId", compositiontargetid AS "compositionTargetId",
           name, version, description, deploystate AS "deployState", lockstate AS "lockState",
           substate AS "subState", statechangeresult AS "stateChangeResult", phase,
           floor(extract(epoch FROM lastmsg) * 1000)::float8 AS "lastMsg", revisionid AS "revisionId"
      FROM "${s}".automationcomposition ORDER BY instanceid`,
  elements: (s: string) => `
    SELECT elementid AS "elementId", instanceid AS "instanceId", definition_name AS "definitionName",
           definition_version AS "definitionVersion", participantid AS "participantId", deploystate AS "deployState",
           lockstate AS "lockState", substate AS "subState", migrationstate AS "migrationState", stage,
           operationalstate AS "operationalState", usestate AS "useState", description, message, properties,
           outproperties AS "outProperties"
      FROM "${s}".automationcompositionelement ORDER BY elementid`,
  participants: (s: string) => `SELECT participantid AS "participantId" FROM "${s}".participant ORDER BY participantid`,
  supportedElements: (s: string) => `
    SELECT id, participantid AS "participantId", typename AS "typeName", typeversion AS "typeVersion"
      FROM "${s}".participantsupportedacelements ORDER BY id`,
} as const;

/**
 * Reads ONAP's tables in one read-only, repeatable-read transaction, so the rows are one consistent picture even if
 * ONAP's runtime is still writing. The schema's version is checked first; a refused schema is not read further.
 */
export async function readOnapDatabase(source: OnapSource): Promise<OnapRead> {
  const schema = source.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new OnapSourceError(`--from-schema: "${schema}" is not a schema name`);
  }
  const client = new Client({ connectionString: source.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new OnapSourceError(
      `ONAP database ${describeUrl(source.url)} cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const tables = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    );
    const tableNames = tables.rows.map((row) => row.table_name);
    const changelogTags = tableNames.includes(ONAP_CHANGELOG_TABLE)
      ? (
          await client.query<{ tag: string | null }>(
            `SELECT tag FROM "${schema}".databasechangelog ORDER BY orderexecuted`,
          )
        ).rows.map((row) => row.tag)
      : null;
    const verdict = onapSchemaVersion({ tables: tableNames, changelogTags });
    if (!verdict.ok) {
      return { verdict, snapshot: null };
    }
    const read = async (query: (schemaName: string) => string): Promise<Array<Record<string, unknown>>> =>
      (await client.query<Record<string, unknown>>(query(schema))).rows;
    // Each row's field is typed unknown and checked by the mapping, so the driver's rows are taken as they come.
    const snapshot: OnapSnapshot = {
      definitions: await read(QUERIES.definitions),
      nodeTemplateStates: await read(QUERIES.nodeTemplateStates),
      instances: await read(QUERIES.instances),
      elements: await read(QUERIES.elements),
      participants: await read(QUERIES.participants),
      supportedElements: await read(QUERIES.supportedElements),
    } as unknown as OnapSnapshot;
    await client.query('COMMIT');
    return { verdict, snapshot };
  } catch (error) {
    throw new OnapSourceError(
      `ONAP database ${describeUrl(source.url)} could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
