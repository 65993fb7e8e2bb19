import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardQueries, exposedSeriesNames, metricNamesOf } from '../../../../test/support/promql';

const ROOT = join(__dirname, '..', '..', '..', '..');
const DASHBOARD = join(ROOT, 'grafana', 'acm-runtime.json');
const CHART_COPY = join(ROOT, 'helm', 'acm-runtime', 'files', 'dashboard.json');

describe('the Grafana dashboard', () => {
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
    expect(metricNamesOf('max by (state) (acm_participants)')).toEqual(['acm_participants']);
  });

  it('expands histogram families to the series a scrape serves', () => {
    expect([...exposedSeriesNames('# TYPE h histogram\n# TYPE c counter\n')].sort()).toEqual([
      'c',
      'h_bucket',
      'h_count',
      'h_sum',
    ]);
  });

  it('has a query on every panel, each reading a metric', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Parameters<typeof dashboardQueries>[0];
    expect(dashboardQueries(dashboard)).toHaveLength(dashboard.panels.length);
    for (const query of dashboardQueries(dashboard)) {
      expect(metricNamesOf(query.expr).length).toBeGreaterThan(0);
    }
  });

  it('is shipped unchanged in the Helm chart (helm reads files inside the chart only)', () => {
    expect(readFileSync(CHART_COPY, 'utf8')).toBe(readFileSync(DASHBOARD, 'utf8'));
  });
});
