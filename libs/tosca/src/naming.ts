import { excerpt } from '@acm/input-guards';

/** Concept-name format of ONAP policy-models (PfKey): what ONAP accepts as a TOSCA entity name. */
export const NAME_PATTERN = /^[A-Za-z0-9\-_.]+$/;

/** The official SemVer 2.0 regular expression (semver.org), which ONAP also applies to every version. */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * Longest name and version accepted. Names and versions are keys of unique indexes, and a PostgreSQL btree entry
 * cannot exceed about 2,700 bytes; 255 leaves room for both in one key and for any name a person writes.
 */
export const MAX_NAME_LENGTH = 255;
export const MAX_VERSION_LENGTH = 255;

/** Version ONAP assumes when a TOSCA entity or reference declares none. */
export const NULL_VERSION = '0.0.0';

/** Why a value is not a concept name (as a phrase after the field name), or `undefined` when it is one. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') {
    return `must be a name (text), got ${excerpt(name)}`;
  }
  if (name.length > MAX_NAME_LENGTH) {
    return `must be at most ${MAX_NAME_LENGTH} characters long, got ${name.length}`;
  }
  return NAME_PATTERN.test(name) ? undefined : `must match ^[A-Za-z0-9\\-_.]+$, got ${excerpt(name)}`;
}

/** Why a value is not a SemVer 2.0 version (as a phrase after the field name), or `undefined` when it is one. */
export function versionProblem(version: unknown): string | undefined {
  if (typeof version === 'string' && version.length > MAX_VERSION_LENGTH) {
    return `must be at most ${MAX_VERSION_LENGTH} characters long, got ${version.length}`;
  }
  return typeof version === 'string' && SEMVER_PATTERN.test(version)
    ? undefined
    : `must be a semantic version (SemVer 2.0, e.g. 1.0.0), got ${excerpt(version)}`;
}

/** True when `name` is usable as a concept name (node template key, type name, instance name). */
export function isValidName(name: unknown): name is string {
  return nameProblem(name) === undefined;
}

/** True when `version` is a full SemVer 2.0 string; numbers parsed from YAML (`1.0`) are refused. */
export function isValidVersion(version: unknown): version is string {
  return versionProblem(version) === undefined;
}
