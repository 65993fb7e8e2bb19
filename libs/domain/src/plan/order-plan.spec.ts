import type { AutomationComposition, InstanceElement } from '../model';
import type { DeployState, LockState, StateChangeResult } from '../states';
import { resolveStateChange } from '../instance/instance-lifecycle';
import { checkOrderMayStart } from '../instance/order-checks';
import type { ElementTemplate } from '../operation/topology';
import type { OrderPlan } from './order-plan';
import { planInstanceOrder } from './order-plan';

function template(name: string, startPhase = 0, dependsOn: string[] = [], migrate: number[] = [0]): ElementTemplate {
  return { name, version: '1.0.0', startPhase, stage: { prepare: [0], migrate }, dependsOn };
}

function element(name: string, deployState: DeployState, lockState: LockState): InstanceElement {
  return {
    id: `id-${name}`,
    definition: { name, version: '1.0.0' },
    participantId: name === 'Frontend' ? 'P2' : 'P1',
    deployState,
    lockState,
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties: {},
    outProperties: {},
  };
}

function instance(
  names: readonly string[],
  deployState: DeployState,
  lockState: LockState,
  stateChangeResult: StateChangeResult = 'NO_ERROR',
): AutomationComposition {
  return {
    instanceId: 'i-1',
    compositionId: 'c-1',
    compositionTargetId: null,
    name: 'instance',
    version: '1.0.0',
    description: null,
    derivedFrom: null,
    metadata: null,
    precheck: null,
    deployState,
    lockState,
    subState: 'NONE',
    stateChangeResult,
    phase: null,
    lastMsg: 0,
    revisionId: 'r-1',
    elements: Object.fromEntries(names.map((name) => [`id-${name}`, element(name, deployState, lockState)])),
  };
}

/** Each step as `kind phase: elements`, with each element's waits in brackets. */
function shape(plan: OrderPlan): string[] {
  return plan.steps.map(
    (step) =>
      `${step.kind} ${step.phase}: ${step.elements
        .map((e) => `${e.name}${e.waitsFor.length > 0 ? `[${e.waitsFor.map((id) => id.slice(3)).join(',')}]` : ''}`)
        .sort()
        .join(' ')}`,
  );
}

const DIAMOND = [
  template('Database'),
  template('Api', 0, ['Database']),
  template('Worker', 0, ['Database']),
  template('Frontend', 0, ['Api', 'Worker']),
];
const DIAMOND_NAMES = DIAMOND.map((t) => t.name);

describe(planInstanceOrder.name, () => {
  it('deploys a diamond: Database, then Api and Worker together, then Frontend', () => {
    const plan = planInstanceOrder({
      order: 'DEPLOY',
      instance: instance(DIAMOND_NAMES, 'UNDEPLOYED', 'NONE'),
      templates: DIAMOND,
    });

    expect(plan.walk).toBe('startPhase');
    expect(plan.target).toEqual({ deployState: 'DEPLOYED', lockState: 'LOCKED' });
    expect(shape(plan)).toEqual([
      'PHASE_STARTED 0: Database',
      'ELEMENTS_DISPATCHED 0: Api[Database] Worker[Database]',
      'ELEMENTS_DISPATCHED 0: Frontend[Api,Worker]',
    ]);
    expect(plan.steps.map((step) => step.participants)).toEqual([['P1'], ['P1'], ['P2']]);
  });

  it('shows the health gate of a deploy’s gated element, and still plans what waits for it', () => {
    const gated = DIAMOND.map((entry) =>
      entry.name === 'Database'
        ? { ...entry, gateMetadata: { health_condition: 'ready == true', health_bake: 30, health_deadline: 300 } }
        : entry,
    );
    const deploy = planInstanceOrder({
      order: 'DEPLOY',
      instance: instance(DIAMOND_NAMES, 'UNDEPLOYED', 'NONE'),
      templates: gated,
    });
    expect(shape(deploy)).toHaveLength(3);
    expect(deploy.steps[0]?.elements[0]?.gate).toEqual({
      condition: 'ready == true',
      bakeMs: 30_000,
      deadlineMs: 300_000,
    });
    expect(deploy.steps.slice(1).flatMap((step) => step.elements.map((entry) => entry.gate))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    const undeploy = planInstanceOrder({
      order: 'UNDEPLOY',
      instance: instance(DIAMOND_NAMES, 'DEPLOYED', 'LOCKED'),
      templates: gated,
    });
    expect(undeploy.steps.flatMap((step) => step.elements.filter((entry) => entry.gate !== undefined))).toEqual([]);
  });

  it('undeploys, locks and deletes the diamond in reverse', () => {
    for (const [order, deployState, lockState] of [
      ['UNDEPLOY', 'DEPLOYED', 'LOCKED'],
      ['LOCK', 'DEPLOYED', 'UNLOCKED'],
      ['DELETE', 'UNDEPLOYED', 'NONE'],
    ] as const) {
      const plan = planInstanceOrder({
        order,
        instance: instance(DIAMOND_NAMES, deployState, lockState),
        templates: DIAMOND,
      });

      expect(shape(plan)).toEqual([
        'PHASE_STARTED 0: Frontend',
        'ELEMENTS_DISPATCHED 0: Api[Frontend] Worker[Frontend]',
        'ELEMENTS_DISPATCHED 0: Database[Api,Worker]',
      ]);
    }
  });

  it('walks start phases upwards for deploy and downwards for undeploy, one message per phase', () => {
    const templates = [template('A', 0), template('B', 1), template('C', 2), template('D', 2)];
    const names = templates.map((t) => t.name);
    const deploy = planInstanceOrder({ order: 'DEPLOY', instance: instance(names, 'UNDEPLOYED', 'NONE'), templates });
    const undeploy = planInstanceOrder({
      order: 'UNDEPLOY',
      instance: instance(names, 'DEPLOYED', 'LOCKED'),
      templates,
    });

    expect(shape(deploy)).toEqual(['PHASE_STARTED 0: A', 'PHASE_STARTED 1: B', 'PHASE_STARTED 2: C D']);
    expect(deploy.steps.map((step) => step.afterPhase)).toEqual([null, 0, 1]);
    expect(shape(undeploy)).toEqual(['PHASE_STARTED 2: C D', 'PHASE_STARTED 1: B', 'PHASE_STARTED 0: A']);
  });

  it('plans a retry of a failed deploy for the elements that did not reach the target only', () => {
    const failed = instance(DIAMOND_NAMES, 'DEPLOYING', 'NONE', 'FAILED');
    failed.elements['id-Database'] = element('Database', 'DEPLOYED', 'LOCKED');
    failed.elements['id-Api'] = element('Api', 'DEPLOYED', 'LOCKED');

    expect(shape(planInstanceOrder({ order: 'DEPLOY', instance: failed, templates: DIAMOND }))).toEqual([
      'PHASE_STARTED 0: Worker[Database]',
      'ELEMENTS_DISPATCHED 0: Frontend[Api,Worker]',
    ]);
  });

  it('sends update to every element in one message, ignoring dependencies as the engine does', () => {
    const plan = planInstanceOrder({
      order: 'UPDATE',
      instance: instance(DIAMOND_NAMES, 'DEPLOYED', 'LOCKED'),
      templates: DIAMOND,
    });

    expect(plan.walk).toBe('single');
    expect(shape(plan)).toEqual(['PHASE_STARTED 0: Api Database Frontend Worker']);
  });

  it('walks the migrate stages of the target, each element through every stage of its set', () => {
    const source = [template('A'), template('B'), template('C')];
    const target = [template('A', 0, [], [0, 1]), template('B', 0, [], [1, 2]), template('C', 0, [], [0, 2])];
    const plan = planInstanceOrder({
      order: 'MIGRATE',
      instance: instance(['A', 'B', 'C'], 'DEPLOYED', 'LOCKED'),
      templates: source,
      otherTemplates: target,
    });

    expect(plan.walk).toBe('stage');
    expect(shape(plan)).toEqual(['PHASE_STARTED 0: A C', 'PHASE_STARTED 1: A B', 'PHASE_STARTED 2: B C']);
  });

  it('takes maxParallelElements into account: ready elements wait for a free slot in a stable order', () => {
    const templates = [...DIAMOND, template('Alone')];
    const plan = planInstanceOrder({
      order: 'DEPLOY',
      instance: instance([...DIAMOND_NAMES, 'Alone'], 'UNDEPLOYED', 'NONE'),
      templates,
      maxParallelElements: 1,
    });

    expect(plan.maxParallelElements).toBe(1);
    expect(shape(plan)).toEqual([
      'PHASE_STARTED 0: Alone',
      'ELEMENTS_DISPATCHED 0: Database',
      'ELEMENTS_DISPATCHED 0: Api[Database]',
      'ELEMENTS_DISPATCHED 0: Worker[Database]',
      'ELEMENTS_DISPATCHED 0: Frontend[Api,Worker]',
    ]);
  });

  it('plans nothing for an instance with nothing to do', () => {
    const done = instance(DIAMOND_NAMES, 'DEPLOYING', 'NONE', 'FAILED');
    for (const id of Object.keys(done.elements)) {
      done.elements[id] = { ...done.elements[id]!, deployState: 'DEPLOYED', lockState: 'LOCKED' };
    }

    expect(planInstanceOrder({ order: 'DEPLOY', instance: done, templates: DIAMOND }).steps).toEqual([]);
  });
});

describe(checkOrderMayStart.name, () => {
  it('refuses a state change with the message of the PUT itself', () => {
    const deployed = instance(DIAMOND_NAMES, 'DEPLOYED', 'LOCKED');
    const refusal = (run: () => unknown): unknown => {
      try {
        run();
      } catch (error) {
        return error;
      }
      throw new Error('expected a refusal');
    };
    const put = refusal(() =>
      resolveStateChange({ deployOrder: 'DEPLOY', lockOrder: 'NONE', subOrder: 'NONE' }, deployed),
    );

    expect(refusal(() => checkOrderMayStart('DEPLOY', deployed))).toEqual(put);
    expect((put as Error).message).toMatch(/^Not valid order AcInstanceStateUpdate\(deployOrder=DEPLOY/);
  });

  it('refuses a deploy with an element left NEW by a migration', () => {
    const undeployed = instance(['A'], 'UNDEPLOYED', 'NONE');
    undeployed.elements['id-A'] = { ...undeployed.elements['id-A']!, migrationState: 'NEW' };

    expect(() => checkOrderMayStart('DEPLOY', undeployed)).toThrow(
      'Deploy not allowed: an element is NEW or REMOVED from a migration',
    );
  });

  it('tells an update of an undeployed instance (no operation) from one of a deployed instance', () => {
    expect(checkOrderMayStart('UPDATE', instance(['A'], 'UNDEPLOYED', 'NONE'))).toBe(false);
    expect(checkOrderMayStart('UPDATE', instance(['A'], 'DEPLOYED', 'LOCKED'))).toBe(true);
    expect(() => checkOrderMayStart('MIGRATE', instance(['A'], 'UNDEPLOYED', 'NONE'))).toThrow(
      /^Not valid order MIGRATE/,
    );
  });
});
