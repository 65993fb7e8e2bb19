import type { InstanceElement } from '../model';
import type { InstanceStepContext } from './instance-types';
import type { InstanceStep } from './instance-operation';
import { decideInstance, needsSupervision } from './instance-operation';
import { instanceDueAt } from './supervision-due';
import { P1, T0, ack, contextOf, element, events, instanceOf, sends, template } from './testing/instance-fixtures';

/** Api (phase 0) has a gate; Web (phase 1) depends on it through the phases. Fake clock: every time is an argument. */
const gated = {
  ...template('api', 0),
  gateMetadata: { health_condition: 'ready == true', health_bake: 2, health_deadline: 10 },
};

function contextWith(retryLimit = 0): InstanceStepContext {
  return {
    ...contextOf([gated, template('web', 1)]),
    defaultTimeoutMs: 5_000,
    control: {
      retryPolicy:
        retryLimit === 0 ? null : { limit: retryLimit, backoff: { durationMs: 100, factor: 1, maxDurationMs: 100 } },
      resend: { maxWaitMs: 0, maxRetryCount: 0 },
      noProgressTimeoutMs: 0,
    },
  };
}

function deployed(context = contextWith()): InstanceStep {
  const ordered = decideInstance(
    instanceOf([element('e-api', 'api'), element('e-web', 'web')]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );
  return decideInstance(
    ordered.target,
    ordered.operation,
    { kind: 'ACK', ack: ack(P1, ['e-api']), answered: null, dispatched: null },
    T0 + 100,
    context,
  );
}

/** The participant reports outProperties (a STATUS, written without the lock): the gate reads them at its next pass. */
function reported(step: InstanceStep, outProperties: Record<string, unknown>): InstanceStep {
  const api = step.target.elements['e-api']!;
  const next: InstanceElement = { ...api, outProperties };
  return { ...step, target: { ...step.target, elements: { ...step.target.elements, 'e-api': next } } };
}

/** A supervision pass; a pass with nothing due leaves the operation as the store holds it. */
function supervised(step: InstanceStep, now: number, context = contextWith()): InstanceStep {
  const next = decideInstance(
    step.target,
    step.operation,
    { kind: 'SUPERVISE', messages: [], retrying: [], reported: new Set() },
    now,
    context,
  );
  return { ...next, operation: next.operation ?? step.operation };
}

describe('health gates in a deploy', () => {
  it('holds a gated element that answered DEPLOYED: still deploying, the next phase not opened', () => {
    const step = deployed();
    expect(step.target.elements['e-api']?.deployState).toBe('DEPLOYING');
    expect(sends(step)).toEqual([]);
    expect(events(step)).toEqual(['GATE_STARTED', 'ELEMENT_RESULT']);
    expect(step.operation?.control.gates?.['e-api']).toMatchObject({ startedAt: T0 + 100, holdingSince: null });
    // The gate's deadline (10 s) governs, not the phase's timeout (5 s).
    expect(step.operation?.deadlineAt).toBe(T0 + 100 + 10_000 + 1_000);
  });

  it('is due for supervision at its next fresh report, and asks the participant for one', () => {
    const step = deployed();
    const context = contextWith();
    expect(instanceDueAt(step.target, step.operation!, context, null)).toBe(T0 + 1_100);
    expect(needsSupervision(step.target, step.operation, T0 + 1_099, context)).toBe(false);
    const polled = supervised(step, T0 + 1_100);
    expect(polled.effects).toContainEqual({ kind: 'REQUEST_STATUS', participantId: P1 });
    expect(polled.target.elements['e-api']?.deployState).toBe('DEPLOYING');
  });

  it('opens the next phase only once ready has been true for the bake time', () => {
    // The report arrives between two passes; the pass at the gate's due time (its next poll) reads it.
    let step = supervised(reported(deployed(), { ready: true }), T0 + 1_100);
    expect(events(step)).toEqual(['GATE_OBSERVED']);
    expect(step.operation?.control.gates?.['e-api']?.holdingSince).toBe(T0 + 1_100);
    step = supervised(step, T0 + 2_100);
    step = supervised(step, T0 + 3_099);
    expect(sends(step)).toEqual([]);
    expect(instanceDueAt(step.target, step.operation!, contextWith(), null)).toBe(T0 + 3_100);
    step = supervised(step, T0 + 3_100);
    expect(events(step)).toEqual(['GATE_PASSED', 'ELEMENT_RESULT', 'PHASE_COMPLETED']);
    expect(step.target.elements['e-api']?.deployState).toBe('DEPLOYED');
    expect(sends(step).map((send) => [send.phase, send.dispatched])).toEqual([[1, ['e-web']]]);
    expect(step.operation?.control.gates).toEqual({});
  });

  it('starts the bake again when ready flaps, and says why it waits', () => {
    let step = supervised(reported(deployed(), { ready: true }), T0 + 1_100);
    step = supervised(reported(step, { ready: false }), T0 + 2_100);
    const observed = step.effects.find((effect) => effect.kind === 'RECORD_EVENT');
    expect(observed).toMatchObject({
      event: 'GATE_OBSERVED',
      detail: { holds: false, reason: 'waiting for api: condition ready == true (observed ready=false)' },
    });
    step = supervised(reported(step, { ready: true }), T0 + 3_100);
    step = supervised(step, T0 + 4_100);
    step = supervised(step, T0 + 5_099);
    expect(sends(step)).toEqual([]);
    step = supervised(step, T0 + 5_100);
    expect(sends(step).map((send) => send.dispatched)).toEqual([['e-web']]);
  });

  it('fails the element and the operation once the deadline passed', () => {
    const step = supervised(deployed(), T0 + 100 + 10_000);
    expect(events(step)).toEqual(['GATE_FAILED', 'ELEMENT_RESULT', 'FAILED']);
    expect(step.operation?.state).toBe('FAILED');
    expect(step.target.elements['e-api']).toMatchObject({ deployState: 'DEPLOYED', message: expect.any(String) });
  });

  it('under a retry policy, a missed deadline sends the element again and its new answer starts a new gate', () => {
    const context = contextWith(1);
    const failed = supervised(deployed(context), T0 + 100 + 10_000, context);
    expect(events(failed)).toEqual(['GATE_FAILED', 'ELEMENT_RESULT', 'RETRY_SCHEDULED']);
    expect(failed.target.elements['e-api']?.deployState).toBe('DEPLOYING');
    expect(failed.operation?.control.gates).toEqual({});
  });

  it('changes nothing for elements without a gate (they complete on their ACK)', () => {
    const context = { ...contextWith(), templates: { own: [template('api', 0), template('web', 1)], other: null } };
    const step = deployed(context);
    expect(step.target.elements['e-api']?.deployState).toBe('DEPLOYED');
    expect(events(step)).toEqual(['ELEMENT_RESULT', 'PHASE_COMPLETED']);
    expect(sends(step).map((send) => send.dispatched)).toEqual([['e-web']]);
    expect(step.operation?.control.gates).toBeUndefined();
  });

  it('passes at once a gate whose condition holds in the ACK with no bake time', () => {
    const quick = { ...gated, gateMetadata: { health_condition: 'ready == true' } };
    const context = { ...contextWith(), templates: { own: [quick, template('web', 1)], other: null } };
    const ordered = decideInstance(
      instanceOf([element('e-api', 'api'), element('e-web', 'web')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    const answer = ack(P1, ['e-api']);
    const ready = {
      ...answer,
      reports: answer.reports.map((report) => ({ ...report, outProperties: { ready: true } })),
    };
    const step = decideInstance(
      ordered.target,
      ordered.operation,
      { kind: 'ACK', ack: ready, answered: null, dispatched: null },
      T0 + 1,
      context,
    );
    expect(step.target.elements['e-api']?.deployState).toBe('DEPLOYED');
    expect(events(step)[0]).toBe('GATE_PASSED');
    expect(sends(step).map((send) => send.dispatched)).toEqual([['e-web']]);
  });
});
