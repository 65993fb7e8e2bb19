import { InMemoryObservationStore } from '@acm/persistence/testing';
import { ObservationMetrics } from './observation-metrics';
import { RuntimeMetrics } from './runtime-metrics';

describe('ObservationMetrics', () => {
  it('reports the observed elements by health at each scrape', async () => {
    const runtime = new RuntimeMetrics();
    const observations = new InMemoryObservationStore();
    new ObservationMetrics(runtime, observations);
    const missing = { health: { state: 'Missing' as const, reason: 'gone', since: 1 }, drift: [] };
    await observations.record([{ instanceId: 'i', elementId: 'e', observed: missing }], []);
    const text = await runtime.registry.metrics();
    expect(text).toContain('acm_observed_elements{health="Missing"} 1');
    expect(text).toContain('acm_observed_elements{health="Healthy"} 0');
  });
});
