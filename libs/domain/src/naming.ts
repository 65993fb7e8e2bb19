/** ONAP's concept-key rules (PfKey): names of letters, digits, '-', '_' and '.'; versions in full SemVer 2.0. */
export const NAME_PATTERN = /^[A-Za-z0-9\-_.]+$/;

/** The regular expression published with Semantic Versioning 2.0.0. */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isValidName(value: unknown): value is string {
  return typeof value === 'string' && NAME_PATTERN.test(value);
}

export function isValidVersion(value: unknown): value is string {
  return typeof value === 'string' && SEMVER_PATTERN.test(value);
}
