/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per package, optionally
 * only for samples inside a time window (CLOCK_MONOTONIC µs, the clock of the profile's timestamps).
 *
 *   node dist-bench/bench/profile-summary.js <file.cpuprofile> [--from-us N --to-us N] [--top 25]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  location: string;
  category: string;
  ms: number;
  /** Share of the busy (non-idle) time, percent. */
  pct: number;
}

export interface ProfileSummary {
  file: string;
  windowMs: number;
  sampledMs: number;
  idleMs: number;
  busyMs: number;
  byCategory: Array<{ category: string; ms: number; pct: number }>;
  /**
   * Self time charged to the nearest package or application frame on the stack, so native and Node core
   * work (a socket writev, a Buffer copy) counts for the library that asked for it (pg, kafkajs, ...).
   */
  byOwner: Array<{ category: string; ms: number; pct: number }>;
  topFunctions: SelfTime[];
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** The package (or `node:` core, or this repository's code) a script URL belongs to. */
export function categoryOf(frame: CallFrame): string {
  if (SPECIAL.has(frame.functionName)) {
    return frame.functionName;
  }
  const url = frame.url;
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? url);
  }
  if (url.startsWith('node:')) {
    return 'node (core)';
  }
  const own = /\/(apps|libs)\/([^/]+)\//.exec(url);
  if (own) {
    return `acm ${own[1]}/${own[2]}`;
  }
  return url === '' ? '(native / V8)' : 'other';
}

function shortLocation(frame: CallFrame): string {
  if (frame.url === '') {
    return '';
  }
  const modules = frame.url.lastIndexOf('node_modules/');
  const tail =
    modules >= 0
      ? frame.url.slice(modules + 'node_modules/'.length)
      : frame.url.replace(/^file:\/\//, '').replace(/^.*\/dist-bench\//, '');
  return `${tail}:${frame.lineNumber + 1}`;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

export function summarizeProfile(
  file: string,
  options: { fromUs?: number; toUs?: number; top?: number } = {},
): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const from = options.fromUs ?? Number.NEGATIVE_INFINITY;
  const to = options.toUs ?? Number.POSITIVE_INFINITY;

  // Sample i happened at startTime + Σ timeDeltas[0..i]; it stands for the time until the next sample.
  const selfUs = new Map<number, number>();
  let time = profile.startTime;
  const timestamps = profile.timeDeltas.map((delta) => (time += delta));
  for (let index = 0; index < profile.samples.length; index += 1) {
    const at = timestamps[index] ?? profile.endTime;
    const next = timestamps[index + 1] ?? profile.endTime;
    if (at < from || at > to) {
      continue;
    }
    const nodeId = profile.samples[index] as number;
    selfUs.set(nodeId, (selfUs.get(nodeId) ?? 0) + Math.max(0, next - at));
  }

  const byFunction = new Map<string, { frame: CallFrame; us: number }>();
  for (const [nodeId, us] of selfUs) {
    const frame = byId.get(nodeId)?.callFrame;
    if (!frame) {
      continue;
    }
    const key = `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}`;
    const entry = byFunction.get(key) ?? { frame, us: 0 };
    entry.us += us;
    byFunction.set(key, entry);
  }

  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      parentOf.set(child, node.id);
    }
  }
  const ownerOf = (nodeId: number): string => {
    const self = byId.get(nodeId)?.callFrame;
    if (self !== undefined && SPECIAL.has(self.functionName)) {
      return self.functionName;
    }
    for (let id: number | undefined = nodeId; id !== undefined; id = parentOf.get(id)) {
      const frame = byId.get(id)?.callFrame;
      const category = frame === undefined ? 'other' : categoryOf(frame);
      if (category !== 'node (core)' && category !== '(native / V8)' && category !== 'other' && category !== '(root)') {
        return category;
      }
    }
    return self === undefined ? 'other' : categoryOf(self);
  };
  const owners = new Map<string, number>();
  for (const [nodeId, us] of selfUs) {
    const owner = ownerOf(nodeId);
    if (owner !== '(idle)') {
      owners.set(owner, (owners.get(owner) ?? 0) + us);
    }
  }

  const sampledUs = [...selfUs.values()].reduce((sum, us) => sum + us, 0);
  const idleUs = [...byFunction.values()]
    .filter((entry) => entry.frame.functionName === '(idle)')
    .reduce((sum, entry) => sum + entry.us, 0);
  const busyUs = Math.max(1, sampledUs - idleUs);

  const categories = new Map<string, number>();
  for (const entry of byFunction.values()) {
    if (entry.frame.functionName === '(idle)') {
      continue;
    }
    const category = categoryOf(entry.frame);
    categories.set(category, (categories.get(category) ?? 0) + entry.us);
  }

  const topFunctions = [...byFunction.values()]
    .filter((entry) => entry.frame.functionName !== '(idle)')
    .sort((a, b) => b.us - a.us)
    .slice(0, options.top ?? 25)
    .map((entry) => ({
      name: entry.frame.functionName === '' ? '(anonymous)' : entry.frame.functionName,
      location: shortLocation(entry.frame),
      category: categoryOf(entry.frame),
      ms: round1(entry.us / 1000),
      pct: round1((entry.us / busyUs) * 100),
    }));

  const windowFrom = Math.max(from, profile.startTime);
  const windowTo = Math.min(to, profile.endTime);
  return {
    file,
    windowMs: round1((windowTo - windowFrom) / 1000),
    sampledMs: round1(sampledUs / 1000),
    idleMs: round1(idleUs / 1000),
    busyMs: round1(busyUs / 1000),
    byCategory: [...categories.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([category, us]) => ({ category, ms: round1(us / 1000), pct: round1((us / busyUs) * 100) })),
    byOwner: [...owners.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([category, us]) => ({ category, ms: round1(us / 1000), pct: round1((us / busyUs) * 100) })),
    topFunctions,
  };
}

export function profileMarkdown(summary: ProfileSummary, categories = 12): string {
  const lines = [
    `Window ${summary.windowMs} ms; busy ${summary.busyMs} ms, idle ${summary.idleMs} ms (self time, sampled).`,
    '',
    '| package / kind | self ms | % of busy |',
    '| --- | ---: | ---: |',
    ...summary.byCategory.slice(0, categories).map((row) => `| ${row.category} | ${row.ms} | ${row.pct} |`),
    '',
    '| charged to (nearest package on the stack) | self ms | % of busy |',
    '| --- | ---: | ---: |',
    ...summary.byOwner.slice(0, categories).map((row) => `| ${row.category} | ${row.ms} | ${row.pct} |`),
    '',
    '| # | function | where | self ms | % of busy |',
    '| ---: | --- | --- | ---: | ---: |',
    ...summary.topFunctions.map(
      (row, index) =>
        `| ${index + 1} | \`${row.name}\` | ${row.location === '' ? row.category : `\`${row.location}\``} | ${row.ms} | ${row.pct} |`,
    ),
  ];
  return lines.join('\n');
}

function main(argv: string[]): void {
  const file = argv[0];
  if (file === undefined || file.startsWith('--')) {
    console.error('usage: profile-summary <file.cpuprofile> [--from-us N --to-us N] [--top N]');
    process.exit(2);
  }
  const option = (name: string): number | undefined => {
    const index = argv.indexOf(name);
    return index >= 0 && argv[index + 1] !== undefined ? Number(argv[index + 1]) : undefined;
  };
  const summary = summarizeProfile(file, {
    fromUs: option('--from-us'),
    toUs: option('--to-us'),
    top: option('--top'),
  });
  console.log(profileMarkdown(summary));
}

if (require.main === module) {
  main(process.argv.slice(2));
}
