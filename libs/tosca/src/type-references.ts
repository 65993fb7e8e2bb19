import { NULL_VERSION } from './naming';

/**
 * Property types that need no data type in the template: ONAP's predefined list (policy-models ToscaUtils) plus the
 * TOSCA 1.3 primitive and normative data types ONAP users may write.
 */
export const TOSCA_PRIMITIVE_TYPES: ReadonlySet<string> = new Set([
  'string',
  'integer',
  'float',
  'boolean',
  'timestamp',
  'null',
  'list',
  'map',
  'object',
  'range',
  'version',
  'any',
  'scalar-unit.size',
  'scalar-unit.time',
  'scalar-unit.frequency',
  'scalar-unit.bitrate',
  'tosca.datatypes.Root',
  'tosca.datatypes.json',
  'tosca.datatypes.xml',
  'tosca.datatypes.Credential',
  'tosca.datatypes.TimeInterval',
  'tosca.datatypes.network.NetworkInfo',
  'tosca.datatypes.network.PortInfo',
  'tosca.datatypes.network.PortDef',
  'tosca.datatypes.network.PortSpec',
]);

/** ONAP treats any parent ending in `.Root` (tosca.nodes.Root, tosca.nodetypes.Root, ...) as the hierarchy's top. */
export function isRootType(name: string): boolean {
  return name.endsWith('.Root');
}

/** A reference to a type as ONAP keys it: name plus version, `0.0.0` when none is given. */
export interface TypeReference {
  name: string;
  version: string;
  /** False when the version was defaulted; error messages then suggest adding `type_version`. */
  versionGiven: boolean;
}

/**
 * Resolves `type` + `type_version` the way ONAP does: an absent `type_version` may be written inline as
 * `name:version`, otherwise the version defaults to `0.0.0`.
 */
export function typeReference(type: string, typeVersion: unknown): TypeReference {
  if (typeof typeVersion === 'string' && typeVersion.trim() !== '') {
    return { name: type, version: typeVersion, versionGiven: true };
  }
  const parts = type.split(':');
  if (parts.length === 2 && parts[0] !== undefined && parts[1] !== undefined) {
    return { name: parts[0], version: parts[1], versionGiven: true };
  }
  return { name: type, version: NULL_VERSION, versionGiven: false };
}

/** The version a type declares, as ONAP stores it (`0.0.0` when absent). */
export function declaredVersion(definition: Record<string, unknown>): string {
  const version = definition['version'];
  return typeof version === 'string' && version !== '' ? version : NULL_VERSION;
}
