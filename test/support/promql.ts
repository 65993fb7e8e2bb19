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

/** The series names a Prometheus text exposition can serve, from its TYPE lines (histograms and summaries expand). */
export function exposedSeriesNames(text: string): Set<string> {
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

/** The sample lines of one metric (name followed by labels or a space), e.g. `acm_participants{state="ON_LINE"} 1`. */
export function samplesOf(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

export interface DashboardQuery {
  readonly panel: string;
  readonly expr: string;
}

/** Every query of a Grafana dashboard, with the title of its panel. */
export function dashboardQueries(dashboard: {
  panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
}): DashboardQuery[] {
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
  );
}
