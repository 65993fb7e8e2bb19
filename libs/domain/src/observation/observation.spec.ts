import {
  assertObservationSettings,
  decideObservation,
  driftOf,
  elementsToHeal,
  observationProblems,
  observationSettingsOf,
  observeIntervalOf,
  parseJsonPointer,
  unobserved,
  worstHealth,
} from './observation';
import type { ObservedElement } from './observation';

const WARN = { driftMode: 'warn' as const, ignore: [] };

describe('parseJsonPointer', () => {
  it('reads RFC 6901 pointers, escapes included', () => {
    expect(parseJsonPointer('')).toEqual([]);
    expect(parseJsonPointer('/replicas')).toEqual(['replicas']);
    expect(parseJsonPointer('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
  });

  it('refuses a pointer without a leading slash or with a bad escape', () => {
    expect(parseJsonPointer('replicas')).toBeNull();
    expect(parseJsonPointer('/a~2')).toBeNull();
    expect(parseJsonPointer('/a~')).toBeNull();
  });
});

describe('driftOf', () => {
  it('names each desired property that differs or is not observed, nested ones by their path', () => {
    const desired = { image: 'nginx:1', replicas: 3, conf: { port: 80, host: 'a' }, tags: ['x'] };
    const observed = { image: 'nginx:2', replicas: 3, conf: { port: 81, host: 'a' }, tags: ['x'], extra: true };
    expect(driftOf(desired, observed, [])).toEqual(['/conf/port', '/image']);
    expect(driftOf({ missing: 1 }, {}, [])).toEqual(['/missing']);
  });

  it('skips what an ignore pointer names and what lies under it', () => {
    const desired = { replicas: 3, conf: { port: 80, host: 'a' } };
    const observed = { replicas: 5, conf: { port: 81, host: 'b' } };
    expect(driftOf(desired, observed, [['replicas'], ['conf', 'port']])).toEqual(['/conf/host']);
    expect(driftOf(desired, observed, [['conf']])).toEqual(['/replicas']);
  });

  it('escapes the keys it names', () => {
    expect(driftOf({ 'a/b': 1 }, { 'a/b': 2 }, [])).toEqual(['/a~1b']);
  });
});

describe('decideObservation', () => {
  it('turns a never observed element Healthy, then writes nothing while nothing changes', () => {
    const first = decideObservation('e1', null, { present: true, healthy: true }, {}, WARN, 100);
    expect(first.next).toEqual({ health: { state: 'Healthy', reason: null, since: 100 }, drift: [] });
    expect(first.changes).toEqual([
      { event: 'HEALTH_CHANGED', detail: { elementId: 'e1', health: 'Healthy', previous: 'Unknown', reason: null } },
    ]);
    const again = decideObservation('e1', first.next, { present: true, healthy: true }, {}, WARN, 200);
    expect(again).toEqual({ next: null, changes: [] });
  });

  it('marks a gone element Missing and an unhealthy one Degraded, with the reason and the time of the change', () => {
    const healthy: ObservedElement = { health: { state: 'Healthy', reason: null, since: 1 }, drift: [] };
    const gone = decideObservation('e1', healthy, { present: false, healthy: false }, {}, WARN, 50);
    expect(gone.next?.health).toEqual({
      state: 'Missing',
      reason: 'the participant does not find the element',
      since: 50,
    });
    const degraded = decideObservation('e1', healthy, { present: true, healthy: false, reason: 'probe' }, {}, WARN, 60);
    expect(degraded.next?.health).toEqual({ state: 'Degraded', reason: 'probe', since: 60 });
    expect(degraded.changes.map((change) => change.event)).toEqual(['HEALTH_CHANGED']);
  });

  it('writes a new reason of the same state without an event and keeps since', () => {
    const degraded: ObservedElement = { health: { state: 'Degraded', reason: 'a', since: 5 }, drift: [] };
    const decision = decideObservation('e1', degraded, { present: true, healthy: false, reason: 'b' }, {}, WARN, 9);
    expect(decision).toEqual({
      next: { health: { state: 'Degraded', reason: 'b', since: 5 }, drift: [] },
      changes: [],
    });
  });

  it('records drift once when it appears, and again when it clears', () => {
    const healthy: ObservedElement = { health: { state: 'Healthy', reason: null, since: 1 }, drift: [] };
    const changed = decideObservation(
      'e1',
      healthy,
      { present: true, healthy: true, properties: { a: 2 } },
      { a: 1 },
      WARN,
      2,
    );
    expect(changed.changes).toEqual([
      { event: 'DRIFTED', detail: { elementId: 'e1', paths: ['/a'], previous: [], mode: 'warn' } },
    ]);
    const still = decideObservation(
      'e1',
      changed.next,
      { present: true, healthy: true, properties: { a: 3 } },
      { a: 1 },
      WARN,
      3,
    );
    expect(still).toEqual({ next: null, changes: [] });
    const back = decideObservation(
      'e1',
      changed.next,
      { present: true, healthy: true, properties: { a: 1 } },
      { a: 1 },
      WARN,
      4,
    );
    expect(back.changes).toEqual([
      { event: 'DRIFTED', detail: { elementId: 'e1', paths: [], previous: ['/a'], mode: 'warn' } },
    ]);
  });

  it('compares nothing with drift off, nor for a gone element, nor without observed properties', () => {
    const off = { driftMode: 'off' as const, ignore: [] };
    expect(
      decideObservation('e', null, { present: true, healthy: true, properties: { a: 2 } }, { a: 1 }, off, 1).next
        ?.drift,
    ).toEqual([]);
    expect(
      decideObservation('e', null, { present: false, healthy: true, properties: { a: 2 } }, { a: 1 }, WARN, 1).next
        ?.drift,
    ).toEqual([]);
    expect(decideObservation('e', null, { present: true, healthy: true }, { a: 1 }, WARN, 1).next?.drift).toEqual([]);
  });
});

describe('worstHealth and elementsToHeal', () => {
  it('orders Missing over Degraded over Unknown over Healthy', () => {
    expect(worstHealth([])).toBe('Unknown');
    expect(worstHealth(['Healthy', 'Healthy'])).toBe('Healthy');
    expect(worstHealth(['Healthy', 'Unknown'])).toBe('Unknown');
    expect(worstHealth(['Degraded', 'Missing', 'Healthy'])).toBe('Missing');
  });

  it('names the missing or drifted elements under correct only', () => {
    const missing: ObservedElement = { health: { state: 'Missing', reason: null, since: 1 }, drift: [] };
    const drifted: ObservedElement = { health: { state: 'Healthy', reason: null, since: 1 }, drift: ['/a'] };
    const fine = unobserved(1);
    const modes: Record<string, 'warn' | 'correct'> = { b: 'correct', a: 'correct', c: 'correct', d: 'warn' };
    expect(elementsToHeal({ b: missing, a: drifted, c: fine, d: missing }, (id) => modes[id] ?? 'off')).toEqual([
      'a',
      'b',
    ]);
  });
});

describe('observation metadata', () => {
  const template = (metadata: Record<string, unknown>) => ({
    topology_template: { node_templates: { web: { type: 't', metadata } } },
  });

  it('accepts valid settings and reads them, the instance’s drift first', () => {
    const valid = template({ observe_interval: 5, drift: 'warn', drift_ignore: ['/replicas', '/conf/port'] });
    expect(observationProblems(valid)).toEqual([]);
    expect(observationSettingsOf(valid, 'web', null)).toEqual({
      driftMode: 'warn',
      ignore: [['replicas'], ['conf', 'port']],
    });
    expect(observationSettingsOf(valid, 'web', { drift: 'correct' }).driftMode).toBe('correct');
    expect(observationSettingsOf(template({}), 'web', null)).toEqual({ driftMode: 'off', ignore: [] });
    expect(observeIntervalOf({ observe_interval: 7 })).toBe(7);
    expect(observeIntervalOf(null)).toBe(60);
  });

  it('names the field of each bad setting', () => {
    const bad = template({
      observe_interval: 1,
      heal_max_per_hour: 1.5,
      drift: 'heal',
      drift_ignore: ['/ok', 'replicas'],
    });
    expect(observationProblems(bad).map((problem) => problem.path)).toEqual([
      'topology_template.node_templates.web.metadata.observe_interval',
      'topology_template.node_templates.web.metadata.heal_max_per_hour',
      'topology_template.node_templates.web.metadata.drift',
      'topology_template.node_templates.web.metadata.drift_ignore[1]',
    ]);
    expect(observationProblems(template({ drift_ignore: '/a' }))[0]?.message).toBe('must be a list of JSON pointers');
    expect(observationProblems(template({ heal_max_per_hour: -1 }))[0]?.message).toBe(
      'must be a whole number of heals, at least 0, got -1',
    );
    expect(observationProblems(template({ heal_max_per_hour: 0 }))).toEqual([]);
  });

  it('refuses a template with a bad setting as VALIDATION_FAILED (400), naming the field', () => {
    expect(() => assertObservationSettings(template({ drift_ignore: ['replicas'] }))).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message:
          'topology_template.node_templates.web.metadata.drift_ignore[0]: must be a JSON pointer (RFC 6901, e.g. "/replicas"), got "replicas"',
      }),
    );
    expect(() => assertObservationSettings(template({ drift_ignore: ['/replicas'] }))).not.toThrow();
  });
});
