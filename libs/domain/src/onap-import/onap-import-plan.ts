import type { AutomationComposition, CompositionDefinition, Participant } from '../model';
import type { Mapped, TransitionalPolicy } from './onap-mapping';
import { definitionFromOnap, instanceFromOnap, participantFromOnap } from './onap-mapping';
import type { OnapSnapshot } from './onap-rows';

interface PlannedItem<K extends string, T> {
  readonly kind: K;
  /** The row's id as ONAP stored it (a refused row's may be no UUID). */
  readonly id: string;
  /** Name and version, for the report. */
  readonly label: string;
  readonly mapped: Mapped<T>;
}

export type PlannedDefinition = PlannedItem<'definition', CompositionDefinition>;
export type PlannedInstance = PlannedItem<'instance', AutomationComposition>;
export type PlannedParticipant = PlannedItem<'participant', Participant>;
export type PlannedImport = PlannedDefinition | PlannedInstance | PlannedParticipant;

/** What an import writes, in the order it writes it: participants, then definitions, then their instances. */
export interface OnapImportPlan {
  readonly participants: readonly PlannedParticipant[];
  readonly definitions: readonly PlannedDefinition[];
  readonly instances: readonly PlannedInstance[];
}

function grouped<T>(rows: readonly T[], key: (row: T) => unknown): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const id = String(key(row)).toLowerCase();
    groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  return groups;
}

function labelOf(name: unknown, version: unknown): string {
  return `${typeof name === 'string' ? name : '?'} ${typeof version === 'string' ? version : '?'}`;
}

/** Maps every row of an ONAP database; a row that does not map is kept in the plan with the reason. */
export function planOnapImport(snapshot: OnapSnapshot, transitional: TransitionalPolicy): OnapImportPlan {
  const statesOf = grouped(snapshot.nodeTemplateStates, (row) => row.compositionId);
  const elementsOf = grouped(snapshot.elements, (row) => row.instanceId);
  const typesOf = grouped(snapshot.supportedElements, (row) => row.participantId);
  const definitions = snapshot.definitions.map((row): PlannedDefinition => ({
    kind: 'definition',
    id: String(row.compositionId),
    label: labelOf(row.name, row.version),
    mapped: definitionFromOnap(row, statesOf.get(String(row.compositionId).toLowerCase()) ?? [], transitional),
  }));
  const importable = new Set(definitions.filter((item) => item.mapped.ok).map((item) => item.id.toLowerCase()));
  const instances = snapshot.instances.map((row): PlannedInstance => {
    const id = String(row.instanceId);
    const planned: PlannedInstance = {
      kind: 'instance',
      id,
      label: labelOf(row.name, row.version),
      mapped: instanceFromOnap(row, elementsOf.get(id.toLowerCase()) ?? [], transitional),
    };
    if (!planned.mapped.ok) {
      return planned;
    }
    const { compositionId, compositionTargetId } = planned.mapped.value;
    const missing = [compositionId, compositionTargetId].find((used) => used !== null && !importable.has(used));
    return missing === undefined || missing === null
      ? planned
      : { ...planned, mapped: { ok: false, reason: `its composition definition ${missing} is not imported` } };
  });
  const participants = snapshot.participants.map((row): PlannedParticipant => ({
    kind: 'participant',
    id: String(row.participantId),
    label: String(row.participantId),
    mapped: participantFromOnap(row, typesOf.get(String(row.participantId).toLowerCase()) ?? []),
  }));
  return { participants, definitions, instances };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(canonical);
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * Whether two stored objects hold the same data, whatever the order of their keys (PostgreSQL's jsonb keeps its
 * own): how a second import tells "unchanged" from "changed in the runtime since".
 */
export function sameData(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
