import type {
  AutomationComposition,
  CompositionDefinition,
  Participant,
  PlannedImport,
  PlannedInstance,
  Store,
  TransitionalPolicy,
  UnitOfWork,
} from '@acm/domain';
import { DomainError, planOnapImport, sameData } from '@acm/domain';
import { formatProblems, validateServiceTemplate } from '@acm/tosca';
import type { OnapSource } from './onap-source';
import { OnapSourceError, readOnapDatabase } from './onap-source';

/**
 * What became of one ONAP row: written now (`imported`, or `would import` in a dry run), already there with the same
 * data (`unchanged`), already there with other data, which the import never overwrites (`kept`: the runtime changed
 * it since, or it was made here), or left out with the reason (`refused`).
 */
export type ImportOutcome = 'imported' | 'would import' | 'unchanged' | 'kept' | 'refused';

export interface ImportLine {
  readonly kind: PlannedImport['kind'];
  readonly id: string;
  readonly label: string;
  readonly outcome: ImportOutcome;
  /** Why it was refused or kept, or how a transitional state was imported. */
  readonly detail: string | null;
}

export interface ImportReport {
  readonly schemaVersion: string;
  readonly dryRun: boolean;
  readonly lines: readonly ImportLine[];
}

export interface ImportOptions {
  readonly source: OnapSource;
  /** The runtime's database. */
  readonly unitOfWork: UnitOfWork;
  readonly transitional: TransitionalPolicy;
  readonly dryRun: boolean;
  /** The TOSCA type names the runtime recognises elements and compositions by (TOSCA_ELEMENT_NAME, ...). */
  readonly toscaElementName: string;
  readonly toscaCompositionName: string;
}

/** A schema of another ONAP version or no ONAP schema at all: nothing is imported. */
export class OnapSchemaRefused extends OnapSourceError {}

type Existing = 'absent' | 'same' | 'different' | 'deleted';

function compareParticipants(stored: Participant | null, imported: Participant): Existing {
  if (stored === null) {
    return 'absent';
  }
  // Only the supported types are ONAP's to say: ids are per registration, replicas are the runtime's own.
  const types = (participant: Participant): string[] =>
    Object.values(participant.participantSupportedElementTypes)
      .map((type) => `${type.typeName} ${type.typeVersion}`)
      .sort();
  return sameData(types(stored), types(imported)) ? 'same' : 'different';
}

/**
 * Absent with a history means deleted through the runtime after an earlier import: the history of a definition or
 * instance outlives it (until retention prunes it), so a later run does not bring back what the operator deleted.
 */
async function compare<T>(store: Store, id: string, stored: { value: T } | null, imported: T): Promise<Existing> {
  if (stored === null) {
    return (await store.events.list(id, 1)).length > 0 ? 'deleted' : 'absent';
  }
  return sameData(stored.value, imported) ? 'same' : 'different';
}

const KEPT = 'the runtime holds other data under this id (changed since the last import, or made here); left as it is';
const DELETED = 'deleted through the runtime since it was imported (its history says so); not imported again';

/**
 * Reads ONAP's database, maps every row, and writes what maps and is not there yet: each participant, definition and
 * instance in a transaction of its own, so an instance is written whole or not at all, and a row that fails leaves
 * the others imported. Rows already there are compared, never overwritten, so a second run changes nothing.
 */
export async function importOnap(options: ImportOptions): Promise<ImportReport> {
  const read = await readOnapDatabase(options.source);
  if (!read.verdict.ok || read.snapshot === null) {
    throw new OnapSchemaRefused(read.verdict.ok ? 'ONAP schema not read' : read.verdict.reason);
  }
  const plan = planOnapImport(read.snapshot, options.transitional);
  const lines: ImportLine[] = [];
  for (const item of [...plan.participants, ...plan.definitions]) {
    lines.push(await importOne(item, options));
  }
  const present = new Set(
    lines
      .filter((line) => line.kind === 'definition' && line.outcome !== 'refused')
      .map((line) => line.id.toLowerCase()),
  );
  for (const item of plan.instances) {
    lines.push(await importOne(withDefinitionsPresent(item, present), options));
  }
  return { schemaVersion: read.verdict.version, dryRun: options.dryRun, lines };
}

/** An instance whose definition (or migration target) the runtime will not hold is refused before it is written. */
function withDefinitionsPresent(item: PlannedInstance, present: ReadonlySet<string>): PlannedInstance {
  if (!item.mapped.ok) {
    return item;
  }
  const { compositionId, compositionTargetId } = item.mapped.value;
  const missing = [compositionId, compositionTargetId].find((id) => id !== null && !present.has(id));
  return missing === undefined || missing === null
    ? item
    : { ...item, mapped: { ok: false, reason: `its composition definition ${missing} is not imported` } };
}

function templateProblem(definition: CompositionDefinition, options: ImportOptions): string | null {
  const elementNames = Object.keys(definition.elementStateMap);
  const result = validateServiceTemplate(definition.serviceTemplate, {
    elementTypeName: options.toscaElementName,
    compositionTypeName: options.toscaCompositionName,
    ...(elementNames.length > 0 ? { elementNames } : {}),
  });
  return result.ok ? null : `its service template is not one the runtime reads: ${formatProblems(result.problems)}`;
}

async function importOne(item: PlannedImport, options: ImportOptions): Promise<ImportLine> {
  const line = (outcome: ImportOutcome, detail: string | null): ImportLine => ({
    kind: item.kind,
    id: item.id,
    label: item.label,
    outcome,
    detail,
  });
  const importable = importableOf(item);
  if (importable === null) {
    return line('refused', item.mapped.ok ? null : item.mapped.reason);
  }
  const notes = importable.notes.length > 0 ? importable.notes.join('; ') : null;
  if (importable.kind === 'definition') {
    const problem = templateProblem(importable.value, options);
    if (problem !== null) {
      return line('refused', problem);
    }
  }
  const write = writerOf(importable);
  const decide = async (store: Store, writing: boolean): Promise<ImportLine> => {
    const existing = await write.existing(store);
    if (existing === 'same') {
      return line('unchanged', null);
    }
    if (existing === 'different' || existing === 'deleted') {
      return line('kept', existing === 'deleted' ? DELETED : KEPT);
    }
    if (!writing) {
      return line('would import', notes);
    }
    await write.insert(store);
    return line('imported', notes);
  };
  try {
    return options.dryRun
      ? await options.unitOfWork.read((store) => decide(store, false))
      : await options.unitOfWork.transaction((store) => decide(store, true));
  } catch (error) {
    if (error instanceof DomainError && error.code === 'ALREADY_EXISTS') {
      return line('refused', error.message);
    }
    throw error;
  }
}

/** Null for a row that does not map. */
function importableOf(item: PlannedImport): Importable | null {
  switch (item.kind) {
    case 'participant':
      return item.mapped.ok ? { kind: item.kind, value: item.mapped.value, notes: item.mapped.notes } : null;
    case 'definition':
      return item.mapped.ok ? { kind: item.kind, value: item.mapped.value, notes: item.mapped.notes } : null;
    case 'instance':
      return item.mapped.ok ? { kind: item.kind, value: item.mapped.value, notes: item.mapped.notes } : null;
  }
}

interface Writer {
  existing(store: Store): Promise<Existing>;
  insert(store: Store): Promise<void>;
}

/** A planned row that maps, narrowed by kind. */
type Importable = { readonly notes: readonly string[] } & (
  | { readonly kind: 'participant'; readonly value: Participant }
  | { readonly kind: 'definition'; readonly value: CompositionDefinition }
  | { readonly kind: 'instance'; readonly value: AutomationComposition }
);

function writerOf(item: Importable): Writer {
  switch (item.kind) {
    case 'participant': {
      const participant = item.value;
      return {
        existing: async (store) =>
          compareParticipants(await store.participants.find(participant.participantId), participant),
        insert: (store) => store.participants.save(participant),
      };
    }
    case 'definition': {
      const definition = item.value;
      return {
        existing: async (store) =>
          compare(store, definition.compositionId, await store.definitions.find(definition.compositionId), definition),
        insert: (store) => store.definitions.insert(definition),
      };
    }
    case 'instance': {
      const instance = item.value;
      return {
        existing: async (store) =>
          compare(store, instance.instanceId, await store.instances.find(instance.instanceId), instance),
        insert: async (store) => {
          if (await store.instances.isNameVersionTaken(instance.name, instance.version, instance.instanceId)) {
            throw new DomainError(
              'ALREADY_EXISTS',
              `another instance of the runtime is named ${instance.name} ${instance.version}`,
            );
          }
          const taken = await store.instances.elementIdsInUse(Object.keys(instance.elements), instance.instanceId);
          if (taken.length > 0) {
            throw new DomainError('ALREADY_EXISTS', `element id(s) ${taken.join(', ')} belong to another instance`);
          }
          await store.instances.insert(instance);
        },
      };
    }
  }
}

/** Counts of each outcome per kind of row. */
export function countOutcomes(report: ImportReport): Record<PlannedImport['kind'], Record<ImportOutcome, number>> {
  const zero = (): Record<ImportOutcome, number> => ({
    imported: 0,
    'would import': 0,
    unchanged: 0,
    kept: 0,
    refused: 0,
  });
  const counts = { participant: zero(), definition: zero(), instance: zero() };
  for (const line of report.lines) {
    counts[line.kind][line.outcome] += 1;
  }
  return counts;
}

/** The report as the command prints it: one line per row, then a summary per kind. */
export function formatReport(report: ImportReport, elapsedMs: number): string {
  const rows = report.lines.map(
    (line) =>
      `${line.kind.padEnd(11)} ${line.id} ${line.label}: ${line.outcome}${line.detail === null ? '' : ` (${line.detail})`}`,
  );
  const counts = countOutcomes(report);
  const summary = (['participant', 'definition', 'instance'] as const).map((kind) => {
    const parts = Object.entries(counts[kind])
      .filter(([outcome, count]) => count > 0 || outcome === (report.dryRun ? 'would import' : 'imported'))
      .map(([outcome, count]) => `${count} ${outcome}`);
    return `${kind}s: ${parts.join(', ')}`;
  });
  return [
    `ONAP schema ${report.schemaVersion}${report.dryRun ? ' (dry run: nothing written)' : ''}`,
    ...rows,
    ...summary,
    `done in ${Math.round(elapsedMs)} ms`,
    '',
  ].join('\n');
}
