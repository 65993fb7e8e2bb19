/** Concept-name format of ONAP policy-models (PfKey): what ONAP accepts as a TOSCA entity name. */
export const NAME_PATTERN = /^[A-Za-z0-9\-_.]+$/;

/** The official SemVer 2.0 regular expression (semver.org), which ONAP also applies to every version. */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Version ONAP assumes when a TOSCA entity or reference declares none. */
export const NULL_VERSION = '0.0.0';

/** True when `name` is usable as a concept name (node template key, type name, instance name). */
export function isValidName(name: unknown): name is string {
  return typeof name === 'string' && NAME_PATTERN.test(name);
}

/** True when `version` is a full SemVer 2.0 string; numbers parsed from YAML (`1.0`) are refused. */
export function isValidVersion(version: unknown): version is string {
  return typeof version === 'string' && SEMVER_PATTERN.test(version);
}
