import { DomainError } from '../errors';
import type { ConceptId, InstanceElement, JsonObject } from '../model';
import { validateInstanceElements } from './instance-elements';
import { mergeProperties } from './property-merge';

/** One element of a migrate (or precheck) body: the desired element set on the target composition. */
export interface MigrationRequestElement {
  readonly id: string;
  readonly definition: ConceptId;
  readonly description: string | null;
  readonly properties: JsonObject;
}

/** What the planner needs to know about the target composition. */
export interface MigrationTarget {
  /** `properties.elements` of the target's composition node template. */
  readonly listedElements: readonly ConceptId[];
  /** The participant the target assigned to an element node template (its elementStateMap). */
  readonly participantOf: (definitionName: string) => string | null;
  /** The target's element node templates that are groups (instance/groups.ts): their members count as one element. */
  readonly groups?: ReadonlySet<string>;
}

function describe(id: ConceptId): string {
  return `${id.name} ${id.version}`;
}

/**
 * ONAP's compatibility rule (PfConceptKey.getCompatibility): an element keeps its node-template name
 * across a migration; only the version may change (major, minor or patch changes are accepted, ONAP
 * merely logs them). A different name is DIFFERENT, which ONAP refuses.
 */
export function assertCompatible(stored: ConceptId, requested: ConceptId): void {
  if (stored.name !== requested.name) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `${describe(stored)} is not compatible with ${describe(requested)}: a migration may change the version ` +
        'of an element definition, not its name; give the element a new id to replace it',
      { stored, requested },
    );
  }
}

/**
 * ONAP's migrate rule, as a pure function of the stored elements and the request:
 * an element the instance has gets the requested properties merged in and the requested definition
 * (names must be compatible); an unknown id is added with migrationState NEW; a stored element the body
 * omits is kept, marked REMOVED, with its source definition and participant. The result, minus the
 * REMOVED elements, must match the target composition. Participants come from the target.
 */
export function planMigration(
  current: Readonly<Record<string, InstanceElement>>,
  requested: readonly MigrationRequestElement[],
  target: MigrationTarget,
): Record<string, InstanceElement> {
  const planned: Record<string, InstanceElement> = {};
  const requestedIds = new Set(requested.map((element) => element.id));
  for (const element of requested) {
    const stored = current[element.id];
    if (stored === undefined) {
      planned[element.id] = {
        id: element.id,
        definition: element.definition,
        participantId: target.participantOf(element.definition.name),
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
        subState: 'NONE',
        migrationState: 'NEW',
        stage: null,
        operationalState: null,
        useState: null,
        description: element.description,
        message: null,
        properties: element.properties,
        outProperties: {},
      };
      continue;
    }
    assertCompatible(stored.definition, element.definition);
    planned[element.id] = {
      ...stored,
      definition: element.definition,
      participantId: target.participantOf(element.definition.name) ?? stored.participantId,
      migrationState: 'DEFAULT',
      properties: mergeProperties(stored.properties, element.properties),
    };
  }
  for (const [id, stored] of Object.entries(current)) {
    if (!requestedIds.has(id)) {
      planned[id] = { ...stored, migrationState: 'REMOVED' };
    }
  }
  const listedGroups = new Set<string>();
  validateInstanceElements(
    target.listedElements,
    Object.values(planned).filter((element) => {
      if (element.migrationState === 'REMOVED') {
        return false;
      }
      const name = element.definition.name;
      if (target.groups?.has(name) !== true) {
        return true;
      }
      // A group is one element of the composition, whatever its count.
      const first = !listedGroups.has(name);
      listedGroups.add(name);
      return first;
    }),
  );
  return planned;
}

/**
 * The elements a migration rollback works on (ONAP MIGRATION_REVERT): every element of the snapshot
 * comes back with its stored definition and properties; one the migration already deleted is re-created
 * (marked NEW for the participant); one the migration added is kept, marked REMOVED, so the participant
 * undoes it. Participant-owned fields (outProperties, states) stay as they are now.
 */
export function planMigrationRevert(
  current: Readonly<Record<string, InstanceElement>>,
  snapshot: Readonly<Record<string, InstanceElement>>,
): Record<string, InstanceElement> {
  const planned: Record<string, InstanceElement> = {};
  for (const [id, before] of Object.entries(snapshot)) {
    const now = current[id];
    planned[id] =
      now === undefined
        ? { ...before, migrationState: 'NEW', stage: null }
        : {
            ...now,
            definition: before.definition,
            participantId: before.participantId,
            description: before.description,
            properties: before.properties,
            migrationState: 'DEFAULT',
          };
  }
  for (const [id, now] of Object.entries(current)) {
    if (snapshot[id] === undefined) {
      planned[id] = { ...now, migrationState: 'REMOVED' };
    }
  }
  return planned;
}

/** The elements an update rollback restores: stored definition, description and properties; the rest as now. */
export function planUpdateRevert(
  current: Readonly<Record<string, InstanceElement>>,
  snapshot: Readonly<Record<string, InstanceElement>>,
): Record<string, InstanceElement> {
  return Object.fromEntries(
    Object.entries(current).map(([id, now]): [string, InstanceElement] => {
      const before = snapshot[id];
      return [
        id,
        before === undefined
          ? now
          : { ...now, definition: before.definition, description: before.description, properties: before.properties },
      ];
    }),
  );
}
