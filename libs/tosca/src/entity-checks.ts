import { excerpt, shortText } from '@acm/input-guards';

import { nameProblem, versionProblem } from './naming';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import type { TypeReference } from './type-references';
import { declaredVersion } from './type-references';

/** A named TOSCA entity (type, node template, policy) together with where it sits in the document. */
export interface EntityEntry {
  name: string;
  path: PathSegment[];
  definition: Record<string, unknown>;
  /** True when the entry is not a mapping; it still resolves references so one mistake is reported once. */
  malformed: boolean;
}

/** ONAP refuses names outside its concept-name alphabet; checked for every key that becomes an entity name. */
export function checkName(name: string, path: readonly PathSegment[], label: string): ToscaProblem[] {
  const reason = nameProblem(name);
  return reason === undefined ? [] : [problem(path, 'name-format', `${label} name ${reason}`)];
}

/** Checks an optional version-like field (`version`, `type_version`) against SemVer 2.0. */
export function checkOptionalVersion(
  definition: Record<string, unknown>,
  field: string,
  path: readonly PathSegment[],
): ToscaProblem[] {
  const value = definition[field];
  const reason = value === undefined || value === null ? undefined : versionProblem(value);
  return reason === undefined ? [] : [problem([...path, field], 'version-format', `${field} ${reason}`)];
}

/** ONAP rejects an entity whose explicit `name` field disagrees with its key. */
export function checkNameField(entry: EntityEntry, label: string): ToscaProblem[] {
  const declared = entry.definition['name'];
  if (declared === undefined || declared === null || declared === entry.name) {
    return [];
  }
  const message = `${label} key ${excerpt(entry.name)} does not match its name field ${excerpt(declared)}`;
  return [problem([...entry.path, 'name'], 'name-mismatch', message)];
}

/**
 * Resolves a (name, version) reference among the entries of one section, as ONAP does: the name must exist and the
 * versions must be equal, with `0.0.0` standing for "no version" on both sides.
 */
export function checkReference(
  reference: TypeReference,
  entries: ReadonlyMap<string, EntityEntry>,
  path: readonly PathSegment[],
  label: string,
  section: string,
): ToscaProblem[] {
  const target = entries.get(reference.name);
  if (target === undefined) {
    return [problem(path, 'type-not-found', `${label} ${shortText(reference.name)} not found in ${section}`)];
  }
  const version = declaredVersion(target.definition);
  if (target.malformed || version === reference.version) {
    return [];
  }
  const hint = reference.versionGiven ? '' : ` (add type_version: ${version})`;
  const given = reference.versionGiven ? `version ${reference.version}` : 'without a type_version';
  const message = `${label} ${shortText(reference.name)} referenced ${given}, but ${section} declares version ${version}${hint}`;
  return [problem(path, 'type-version-not-found', message)];
}
