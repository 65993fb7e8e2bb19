/**
 * Which ONAP schema a database holds. ONAP's runtime-acm creates `clampacm` with a Liquibase changelog whose every
 * release ends with a `tagDatabase` changeset (`1400`, `1500`, ... `1801`); the last tag applied names the schema's
 * version. The mapping of this import was written for one version: another one may have columns it does not know
 * (or lack ones it reads), so it is refused by name rather than read half right.
 */
export const SUPPORTED_ONAP_SCHEMA_VERSION = '1801';

/** The tables the import reads (lower case, as PostgreSQL folds Liquibase's unquoted names). */
export const ONAP_TABLES = [
  'automationcompositiondefinition',
  'nodetemplatestate',
  'automationcomposition',
  'automationcompositionelement',
  'participant',
  'participantsupportedacelements',
] as const;

export const ONAP_CHANGELOG_TABLE = 'databasechangelog';

export interface OnapSchemaFacts {
  /** The tables of the schema, any case. */
  readonly tables: readonly string[];
  /** The `tag` column of `databasechangelog`, in `orderexecuted` order, nulls included (absent table: null). */
  readonly changelogTags: ReadonlyArray<string | null> | null;
}

export type OnapSchemaVerdict =
  | { readonly ok: true; readonly version: string }
  | { readonly ok: false; readonly version: string | null; readonly reason: string };

export function onapSchemaVersion(facts: OnapSchemaFacts): OnapSchemaVerdict {
  const tables = new Set(facts.tables.map((table) => table.toLowerCase()));
  if (facts.changelogTags === null || !tables.has(ONAP_CHANGELOG_TABLE)) {
    const known = ONAP_TABLES.filter((table) => tables.has(table));
    return {
      ok: false,
      version: null,
      reason:
        known.length === 0
          ? `not an ONAP ACM (clampacm) schema: none of its tables (${ONAP_TABLES.join(', ')}) is there`
          : `no ${ONAP_CHANGELOG_TABLE} table: the version of this ONAP schema cannot be told (ONAP's runtime-acm creates that table with its Liquibase changelog)`,
    };
  }
  const tags = facts.changelogTags.filter((tag): tag is string => tag !== null && tag !== '');
  const version = tags[tags.length - 1] ?? null;
  if (version === null) {
    return {
      ok: false,
      version: null,
      reason: `${ONAP_CHANGELOG_TABLE} holds no release tag: not a complete ONAP schema`,
    };
  }
  if (version !== SUPPORTED_ONAP_SCHEMA_VERSION) {
    return {
      ok: false,
      version,
      reason: `ONAP schema version ${version} (the last tag of ${ONAP_CHANGELOG_TABLE}) is not supported: this import reads version ${SUPPORTED_ONAP_SCHEMA_VERSION}`,
    };
  }
  const missing = ONAP_TABLES.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    return {
      ok: false,
      version,
      reason: `ONAP schema ${version} lacks table(s) ${missing.join(', ')}`,
    };
  }
  return { ok: true, version };
}
