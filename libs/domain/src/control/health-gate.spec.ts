import type { GateExpression, GateObservation, GateState, HealthGateRules } from './health-gate';
import {
  assertHealthGates,
  conditionHolds,
  gateDueAt,
  gateWaitingReason,
  healthGateOf,
  isHealthyPerGates,
  observeGate,
  parseGateCondition,
  startGate,
} from './health-gate';

function parsed(text: string): GateExpression {
  const result = parseGateCondition(text);
  if ('error' in result) {
    throw new Error(`${text}: ${result.error.message}`);
  }
  return result.expression;
}

function seen(outProperties: Record<string, unknown>, operationalState: string | null = null): GateObservation {
  return { outProperties, operationalState, useState: null };
}

describe('health gate conditions', () => {
  it.each<[string, GateObservation, boolean]>([
    ['ready == true && replicas >= 3', seen({ ready: true, replicas: 3 }), true],
    ['ready == true && replicas >= 3', seen({ ready: true, replicas: 2 }), false],
    ['ready == true', seen({}), false],
    ['!(ready == false) || replicas > 10', seen({ ready: true }), true],
    ['outProperties.status.phase == "Running"', seen({ status: { phase: 'Running' } }), true],
    ['status.phase != "Running"', seen({ status: { phase: 'Pending' } }), true],
    ['operationalState == "ENABLED"', seen({}, 'ENABLED'), true],
    ['load < 0.5 && load > -1', seen({ load: 0.25 }), true],
    ['replicas >= "3"', seen({ replicas: 3 }), false],
    ['ready', seen({ ready: true }), true],
    ['ready', seen({ ready: 'yes' }), false],
  ])('%s over %j holds: %s', (text, observation, expected) => {
    expect(conditionHolds(parsed(text), observation)).toBe(expected);
  });

  it.each<[string, number, RegExp]>([
    ['ready == ', 9, /Expected expression/],
    ['ready = true', 6, /./],
    ['replicas + 1 > 3', 9, /operator \+ is not allowed/],
    ['max(replicas) > 3', 3, /function calls are not allowed/],
    ['items[0] == 1', 5, /only dotted paths/],
    ['', 0, /empty/],
  ])('refuses %j at position %d', (text, position, message) => {
    const result = parseGateCondition(text);
    expect(result).toEqual({ error: { position, message: expect.stringMatching(message) as unknown } });
  });
});

describe('health gate rules (fake clock)', () => {
  const rules: HealthGateRules = { condition: 'ready == true', bakeMs: 30_000, deadlineMs: 300_000 };
  const expression = parsed(rules.condition);
  const ready = seen({ ready: true });
  const notReady = seen({ ready: false });

  function run(steps: ReadonlyArray<readonly [number, GateObservation]>, state: GateState = startGate(0)) {
    let current = state;
    const verdicts: string[] = [];
    for (const [at, observation] of steps) {
      const next = observeGate(rules, expression, current, observation, at);
      current = next.state;
      verdicts.push(next.verdict);
    }
    return { state: current, verdicts };
  }

  it('holds until ready has been true for the bake time', () => {
    const { verdicts } = run([
      [1_000, notReady],
      [5_000, ready],
      [20_000, ready],
      [34_999, ready],
      [35_000, ready],
    ]);
    expect(verdicts).toEqual(['WAIT', 'WAIT', 'WAIT', 'WAIT', 'PASS']);
  });

  it('starts the bake again when the condition flaps', () => {
    const { verdicts, state } = run([
      [5_000, ready],
      [30_000, notReady],
      [31_000, ready],
      [35_000, ready],
      [60_999, ready],
    ]);
    expect(verdicts).toEqual(['WAIT', 'WAIT', 'WAIT', 'WAIT', 'WAIT']);
    expect(state.holdingSince).toBe(31_000);
    expect(run([[61_000, ready]], state).verdicts).toEqual(['PASS']);
  });

  it('fails once the deadline passed while the condition did not hold long enough', () => {
    expect(run([[299_999, notReady]]).verdicts).toEqual(['WAIT']);
    expect(run([[300_000, notReady]]).verdicts).toEqual(['FAIL']);
    expect(
      run([
        [290_000, ready],
        [300_000, ready],
      ]).verdicts,
    ).toEqual(['WAIT', 'FAIL']);
  });

  it('passes at once without a bake time, and never fails without a deadline', () => {
    const quick: HealthGateRules = { condition: 'ready == true', bakeMs: 0, deadlineMs: null };
    expect(observeGate(quick, expression, startGate(0), ready, 10).verdict).toBe('PASS');
    expect(observeGate(quick, expression, startGate(0), notReady, 10 ** 9).verdict).toBe('WAIT');
  });

  it('is due at the next fresh report, the bake end or the deadline, whichever is first', () => {
    const waiting = startGate(0);
    expect(gateDueAt(rules, waiting, 1_000)).toBe(1_000);
    const holding: GateState = { ...waiting, holdingSince: 500, requestedAt: 5_000 };
    expect(gateDueAt({ ...rules, bakeMs: 2_000 }, holding, 10_000)).toBe(2_500);
    expect(gateDueAt({ ...rules, deadlineMs: 3_000 }, { ...waiting, requestedAt: 2_900 }, 1_000)).toBe(3_000);
  });

  it('says what it waits for and what it observed', () => {
    const { state } = run([[1_000, seen({ ready: false })]]);
    expect(gateWaitingReason('Api', rules, state)).toBe(
      'waiting for Api: condition ready == true (observed ready=false)',
    );
  });

  it('judges an instance healthy only when every gated element holds', () => {
    expect(
      isHealthyPerGates([
        { gate: rules, observation: ready },
        { gate: undefined, observation: notReady },
      ]),
    ).toBe(true);
    expect(isHealthyPerGates([{ gate: rules, observation: notReady }])).toBe(false);
  });
});

describe('health gate metadata', () => {
  it('reads the condition, the bake time and the deadline in seconds', () => {
    expect(healthGateOf({ health_condition: 'ready == true', health_bake: 30, health_deadline: 300 })).toEqual({
      gate: { condition: 'ready == true', bakeMs: 30_000, deadlineMs: 300_000 },
      problems: [],
    });
    expect(healthGateOf({})).toEqual({ gate: undefined, problems: [] });
  });

  it('refuses a condition that does not parse with its position, naming the node template and the field', () => {
    expect(() =>
      assertHealthGates([{ name: 'Api', metadata: { health_condition: 'ready ==', health_bake: -1 } }]),
    ).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(
          /node_templates\.Api\.metadata\.health_condition: does not parse at position 8[\s\S]*health_bake: must be/,
        ) as unknown,
      }),
    );
    expect(() => assertHealthGates([{ name: 'Api', metadata: { health_bake: 3 } }])).toThrow(/needs metadata/);
  });
});
