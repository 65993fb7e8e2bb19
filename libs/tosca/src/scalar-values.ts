/**
 * Reading of TOSCA's textual value types (scalar-unit, timestamp, version) into numbers or tuples that constraints
 * can compare. `undefined` means "not a value of that type".
 */

/** Multipliers to the base unit of each scalar-unit type (TOSCA 1.3); units are case-insensitive. */
const SCALAR_UNITS: Record<string, ReadonlyMap<string, number>> = {
  'scalar-unit.size': units({
    B: 1,
    kB: 1e3,
    KiB: 1024,
    MB: 1e6,
    MiB: 1024 ** 2,
    GB: 1e9,
    GiB: 1024 ** 3,
    TB: 1e12,
    TiB: 1024 ** 4,
  }),
  'scalar-unit.time': units({ d: 86400, h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, ns: 1e-9 }),
  'scalar-unit.frequency': units({ Hz: 1, kHz: 1e3, MHz: 1e6, GHz: 1e9 }),
  'scalar-unit.bitrate': units({
    bps: 1,
    Kbps: 1e3,
    Kibps: 1024,
    Mbps: 1e6,
    Mibps: 1024 ** 2,
    Gbps: 1e9,
    Gibps: 1024 ** 3,
    Tbps: 1e12,
    Tibps: 1024 ** 4,
  }),
};

function units(table: Record<string, number>): ReadonlyMap<string, number> {
  return new Map(Object.entries(table).map(([unit, factor]) => [unit.toLowerCase(), factor]));
}

export const SCALAR_UNIT_TYPES: readonly string[] = Object.keys(SCALAR_UNITS);

const SCALAR_PATTERN = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]+)\s*$/;

/** `"512 MiB"` → bytes, `"30 s"` → seconds, ... */
export function scalarUnitValue(type: string, value: unknown): number | undefined {
  const table = SCALAR_UNITS[type];
  if (table === undefined || typeof value !== 'string') {
    return undefined;
  }
  const match = SCALAR_PATTERN.exec(value);
  const factor = match?.[2] === undefined ? undefined : table.get(match[2].toLowerCase());
  return match?.[1] === undefined || factor === undefined ? undefined : Number(match[1]) * factor;
}

/** The units a scalar-unit type accepts, for error messages. */
export function scalarUnitNames(type: string): string {
  return [...(SCALAR_UNITS[type]?.keys() ?? [])].join(', ');
}

/** YAML 1.2 / ISO 8601 timestamps: a date, or a date and time with an optional zone. */
const TIMESTAMP_PATTERN =
  /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]|[ \t]+)\d{1,2}:\d{2}:\d{2}(?:\.\d+)?(?:[ \t]*(?:Z|[+-]\d{1,2}(?::?\d{2})?))?)?$/;

/** Epoch milliseconds of a timestamp string; the clock is never read. */
export function timestampValue(value: unknown): number | undefined {
  if (typeof value !== 'string' || !TIMESTAMP_PATTERN.test(value)) {
    return undefined;
  }
  const parsed = Date.parse(value.replace(/[ \t]+(?=\d{1,2}:)/, 'T').replace(/[ \t]+(?=[Z+-])/, ''));
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** TOSCA version: `major.minor[.fix[.qualifier[-build]]]`. */
const VERSION_PATTERN = /^(\d+)\.(\d+)(?:\.(\d+)(?:\.([A-Za-z0-9_]+)(?:-(\d+))?)?)?$/;

/** A version as a tuple that compares component by component: `[major, minor, fix, qualifier, build]`. */
export type VersionTuple = readonly [number, number, number, string, number];

export function versionValue(value: unknown): VersionTuple | undefined {
  if (typeof value !== 'string') {
    return undefined;
  }
  const match = VERSION_PATTERN.exec(value);
  if (match === null) {
    return undefined;
  }
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0), match[4] ?? '', Number(match[5] ?? 0)];
}

export function compareVersions(left: VersionTuple, right: VersionTuple): number {
  for (let position = 0; position < left.length; position += 1) {
    const a = left[position];
    const b = right[position];
    if (a !== b && a !== undefined && b !== undefined) {
      return a < b ? -1 : 1;
    }
  }
  return 0;
}
