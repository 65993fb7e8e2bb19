import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { TransitionalPolicy } from '@acm/domain';
import { TRANSITIONAL_POLICIES } from '@acm/domain';
import { TypeOrmUnitOfWork } from '@acm/persistence';
import { loadRuntimeConfig } from '../config/runtime.config';
import { openDatabase } from '../database/database';
import type { ImportReport } from './onap-import/onap-importer';
import { countOutcomes, formatReport, importOnap } from './onap-import/onap-importer';
import { OnapSourceError } from './onap-import/onap-source';
import { runCli } from './run-cli';

export const USAGE = `usage: npm run import:onap -- --from postgres://USER:PASSWORD@HOST:PORT/clampacm
         [--from-schema public] [--dry-run] [--transitional=refuse|as-failed|as-target]
  (or ONAP_DATABASE_URL instead of --from). The runtime's database is the one its own settings name
  (DATABASE_URL, DATABASE_SCHEMA, or the embedded database under DATA_DIR).`;

/** Exit codes: what happened, for scripts. */
export const IMPORT_EXIT = {
  /** Every row imported or already there. */
  DONE: 0,
  /** ONAP's database unreachable, not ONAP's schema, or a schema version this import does not read. */
  NOT_READ: 1,
  USAGE: 2,
  /** Some rows refused (listed with the reason); the others imported. */
  PARTIAL: 3,
} as const;

export interface ImportArguments {
  readonly from: string;
  readonly fromSchema: string;
  readonly dryRun: boolean;
  readonly transitional: TransitionalPolicy;
}

/** The command line, or the problem with it. */
export function parseImportArguments(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ImportArguments | { problem: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        from: { type: 'string' },
        'from-schema': { type: 'string', default: 'public' },
        'dry-run': { type: 'boolean', default: false },
        transitional: { type: 'string', default: 'refuse' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  const from = values.from ?? env['ONAP_DATABASE_URL'];
  if (from === undefined || from.trim() === '') {
    return { problem: 'name ONAP’s database with --from or ONAP_DATABASE_URL' };
  }
  const transitional = values.transitional;
  if (!(TRANSITIONAL_POLICIES as readonly string[]).includes(transitional)) {
    return { problem: `--transitional must be one of ${TRANSITIONAL_POLICIES.join(', ')}, got "${transitional}"` };
  }
  return {
    from: from.trim(),
    fromSchema: values['from-schema'],
    dryRun: values['dry-run'],
    transitional: transitional as TransitionalPolicy,
  };
}

/** PARTIAL when any row was refused, else DONE (rows kept or unchanged are not failures). */
export function exitCodeOf(report: ImportReport): number {
  const counts = countOutcomes(report);
  const refused = counts.participant.refused + counts.definition.refused + counts.instance.refused;
  return refused > 0 ? IMPORT_EXIT.PARTIAL : IMPORT_EXIT.DONE;
}

async function main(args: readonly string[]): Promise<number> {
  const parsed = parseImportArguments(args, process.env);
  if ('problem' in parsed) {
    process.stderr.write(`${parsed.problem}\n${USAGE}\n`);
    return IMPORT_EXIT.USAGE;
  }
  const config = loadRuntimeConfig();
  const started = performance.now();
  const database = await openDatabase(config, config.databaseSchema ?? undefined);
  try {
    const report = await importOnap({
      source: { url: parsed.from, schema: parsed.fromSchema },
      unitOfWork: new TypeOrmUnitOfWork(database.dataSource),
      transitional: parsed.transitional,
      dryRun: parsed.dryRun,
      toscaElementName: config.toscaElementName,
      toscaCompositionName: config.toscaCompositionName,
    });
    process.stdout.write(formatReport(report, performance.now() - started));
    return exitCodeOf(report);
  } catch (error) {
    if (error instanceof OnapSourceError) {
      process.stderr.write(`${error.message}\n`);
      return IMPORT_EXIT.NOT_READ;
    }
    throw error;
  } finally {
    await database.close();
  }
}

if (require.main === module) {
  runCli(main);
}
