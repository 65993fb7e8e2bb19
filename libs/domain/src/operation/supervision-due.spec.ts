import fc from 'fast-check';
import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOperation, OperationState, SlotWait } from '../ports/engine.port';
import { NO_PROGRESS_PROPERTY } from '../control/no-progress';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { ControlSettings, SupervisionContext } from './instance-operation';
import { needsSupervision, supervisionDueOf } from './instance-operation';
import { instanceDueAt } from './supervision-due';
import type { ElementTemplate } from './topology';
import { P1, T0, contextOf, element, instanceOf, template, waitTemplate } from './testing/instance-fixtures';

/**
 * `needsSupervision` (is a pass due now?) and `instanceDueAt` (when must the timer fire?) must agree, or a state
 * exists that a pass would act on and no timer ever wakes for (or the reverse). Before the deadline, where the
 * timeout rule plays no part, a pass is due exactly when the due time has come.
 */

interface Supervised {
  readonly target: AutomationComposition;
  readonly operation: InstanceOperation;
  readonly context: SupervisionContext;
}

function runningOperation(fields: Partial<InstanceOperation>, control: Partial<InstanceOperation['control']>) {
  const operation: InstanceOperation = {
    operationId: 'o-1',
    targetKind: 'INSTANCE',
    targetId: 'i-1',
    order: 'DEPLOY',
    state: 'RUNNING',
    timedOut: false,
    startedAt: T0,
    deadlineAt: T0 + 60_000,
    finishedAt: null,
    phase: 0,
    ...fields,
    control: {
      progressAt: T0,
      resent: 0,
      pausedAt: null,
      pausedMs: 0,
      retried: 0,
      retryAt: null,
      inFlight: 0,
      slotWait: null,
      dueAt: null,
      ...control,
    },
  };
  return operation;
}

const elementArbitrary = fc.record({
  isWaitCondition: fc.boolean(),
  inTransition: fc.boolean(),
  noProgressTimeoutMs: fc.option(fc.integer({ min: 1, max: 5_000 }), { nil: null }),
});

const operationArbitrary = fc.record({
  order: fc.constantFrom<InstanceOrder>('DEPLOY', 'DEPLOY', 'UNDEPLOY', 'MIGRATE_PRECHECK'),
  state: fc.constantFrom<OperationState>('RUNNING', 'RUNNING', 'RUNNING', 'COMPLETED'),
  timedOut: fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0),
  paused: fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0),
  progressAfter: fc.integer({ min: 0, max: 2_000 }),
  resent: fc.integer({ min: 0, max: 3 }),
  retryAfter: fc.option(fc.integer({ min: 0, max: 8_000 }), { nil: null }),
  slotWait: fc.constantFrom<SlotWait | null>(null, null, null, 'FIRST_PHASE', 'PHASE', 'ELEMENTS'),
  deadlineAfter: fc.integer({ min: 0, max: 20_000 }),
});

const settingsArbitrary: fc.Arbitrary<ControlSettings> = fc.record({
  retryPolicy: fc.constant(null),
  resend: fc.record({ maxWaitMs: fc.integer({ min: 0, max: 3_000 }), maxRetryCount: fc.integer({ min: 0, max: 3 }) }),
  noProgressTimeoutMs: fc.integer({ min: 0, max: 5_000 }),
});

const supervisedArbitrary: fc.Arbitrary<Supervised> = fc
  .record({
    elements: fc.array(elementArbitrary, { minLength: 1, maxLength: 5 }),
    operation: operationArbitrary,
    settings: fc.option(settingsArbitrary, { nil: undefined, freq: 8 }),
    lastMsgAfter: fc.integer({ min: 0, max: 2_000 }),
  })
  .map(({ elements, operation, settings, lastMsgAfter }) => {
    const templates: ElementTemplate[] = elements.map((spec, index) =>
      spec.isWaitCondition ? waitTemplate(`t${index}`, 0) : template(`t${index}`, 0),
    );
    const instanceElements: InstanceElement[] = elements.map((spec, index) => ({
      ...element(`e${index}`, `t${index}`, spec.isWaitCondition ? null : P1),
      ...(spec.inTransition ? { deployState: 'DEPLOYING' as const } : { deployState: 'DEPLOYED' as const }),
      lockState: spec.inTransition ? ('NONE' as const) : ('LOCKED' as const),
      properties: spec.noProgressTimeoutMs === null ? {} : { [NO_PROGRESS_PROPERTY]: spec.noProgressTimeoutMs },
    }));
    const target: AutomationComposition = {
      ...instanceOf(instanceElements),
      deployState: 'DEPLOYING',
      lastMsg: T0 + lastMsgAfter,
    };
    const running = runningOperation(
      {
        order: operation.order,
        state: operation.state,
        timedOut: operation.timedOut,
        deadlineAt: T0 + operation.deadlineAfter,
      },
      {
        progressAt: T0 + operation.progressAfter,
        resent: operation.resent,
        pausedAt: operation.paused ? T0 : null,
        retryAt: operation.retryAfter === null ? null : T0 + operation.retryAfter,
        slotWait: operation.slotWait,
      },
    );
    const stepContext = contextOf(templates);
    const context: SupervisionContext =
      settings === undefined
        ? { templates: stepContext.templates }
        : { templates: stepContext.templates, control: settings };
    return { target, operation: running, context };
  });

describe('supervision due times', () => {
  it('before the deadline, a pass is due exactly when the due time the timer arms for has come', () => {
    fc.assert(
      fc.property(supervisedArbitrary, fc.integer({ min: 0, max: 20_000 }), ({ target, operation, context }, back) => {
        const now = Math.max(T0, operation.deadlineAt - back);
        const dueAt = instanceDueAt(target, operation, context, null);
        expect(needsSupervision(target, operation, now, context)).toBe(dueAt !== null && dueAt <= now);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a silent wait condition is neither due for a pass nor arms a timer before the deadline', () => {
    const settings: ControlSettings = {
      retryPolicy: null,
      resend: { maxWaitMs: 0, maxRetryCount: 0 },
      noProgressTimeoutMs: 1_000,
    };
    const context: SupervisionContext = { templates: contextOf([waitTemplate('w', 0)]).templates, control: settings };
    const waiting = { ...element('e-1', 'w', null), deployState: 'DEPLOYING' as const };
    const target = { ...instanceOf([waiting]), deployState: 'DEPLOYING' as const };
    const operation = runningOperation({ deadlineAt: T0 + 60_000 }, { progressAt: T0 });
    expect(supervisionDueOf(target, operation, context)?.reports).toEqual([]);
    expect(needsSupervision(target, operation, T0 + 59_000, context)).toBe(false);
    expect(instanceDueAt(target, operation, context, null)).toBe(T0 + 60_001);
  });
});
