import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineMetrics } from '../engine/engine-metrics';
import { RuntimeMetrics } from './runtime-metrics';

const DASHBOARD = join(__dirname, '..', '..', '..', '..', 'helm', 'acm-runtime', 'files', 'dashboard.json');

interface Panel {
  title: string;
  targets?: { expr: string }[];
}

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless']);

/** The metric names a PromQL expression reads: identifiers that are not functions, keywords or labels. */
export function metricNamesOf(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = [...stripped.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?/g)]
    .filter(([, name, call]) => call === undefined && !PROMQL_WORDS.has(name ?? ''))
    .map(([, name]) => name ?? '');
  return [...new Set(names)];
}

/** The series names GET /actuator/prometheus can serve, from the registry's TYPE lines. */
async function exposedSeriesNames(): Promise<Set<string>> {
  const runtime = new RuntimeMetrics();
  new EngineMetrics(runtime);
  const text = await runtime.registry.metrics();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (name === undefined) {
      continue;
    }
    if (type === 'histogram') {
      ['_bucket', '_sum', '_count'].forEach((suffix) => names.add(name + suffix));
    } else if (type === 'summary') {
      ['', '_sum', '_count'].forEach((suffix) => names.add(name + suffix));
    } else {
      names.add(name);
    }
  }
  return names;
}

describe('the Grafana dashboard of the Helm chart', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  const queries = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
  );

  it('reads metric names out of PromQL, leaving functions, labels and ranges aside', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.95, sum by (le, uri) (rate(http_server_requests_seconds_bucket{a="b(c)"}[5m])))',
      ),
    ).toEqual(['http_server_requests_seconds_bucket']);
    expect(metricNamesOf('sum by (code) (rate(x_total[1m])) or sum without (r) (y_total)')).toEqual([
      'x_total',
      'y_total',
    ]);
  });

  it('has queries', () => {
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) {
      expect(metricNamesOf(query.expr).length).toBeGreaterThan(0);
    }
  });

  it('queries only metrics the runtime exposes', async () => {
    const exposed = await exposedSeriesNames();
    const unknown = queries.flatMap((query) =>
      metricNamesOf(query.expr)
        .filter((name) => !exposed.has(name))
        .map((name) => `${query.panel}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });
});
