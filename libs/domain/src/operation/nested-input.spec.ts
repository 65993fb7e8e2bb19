import { NESTED_COMPOSITION_TYPE } from '../control/nested-composition';
import type { ElementTemplate } from './element-template';
import type { InstanceStep } from './instance-operation';
import { childUpdateOf, childrenToOrder, decideInstance, storedNestedStateOf } from './instance-operation';
import {
  P1,
  T0,
  ack,
  contextOf,
  element,
  events,
  instanceOf,
  sends,
  stepOf,
  template,
} from './testing/instance-fixtures';

const CHILD = 'c0000000-0000-4000-8000-000000000001';

function nestedTemplate(name: string, startPhase: number): ElementTemplate {
  return { ...template(name, startPhase), types: [NESTED_COMPOSITION_TYPE], properties: { compositionId: CHILD } };
}

// A site: `db` (a participant's) in phase 0, then `slice` (a nested composition) in phase 1, then `web` in phase 2.
const context = contextOf([template('db', 0), nestedTemplate('slice', 1), template('web', 2)]);

function deploying(): InstanceStep {
  const started = decideInstance(
    instanceOf([element('e-db', 'db'), element('e-slice', 'slice', null), element('e-web', 'web')]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );
  return decideInstance(
    started.target,
    started.operation,
    { kind: 'ACK', ack: ack(P1, ['e-db']), answered: null, dispatched: null },
    T0 + 1,
    context,
  );
}

function ended(step: InstanceStep, result: boolean, operationId = step.operation!.operationId): InstanceStep {
  return stepOf(
    decideInstance(
      step.target,
      step.operation,
      {
        kind: 'CHILD_ENDED',
        elementId: 'e-slice',
        childInstanceId: 'child-1',
        operationId,
        result,
        message: result ? null : 'child failed: e-x',
        outputs: { url: 'http://slice' },
      },
      T0 + 2,
      context,
    ),
  );
}

describe('nested compositions in the machine', () => {
  it('a deploy reaching the nested element records the child order instead of sending it', () => {
    const step = deploying();
    expect(events(step)).toContain('CHILD_ORDERED');
    const phaseOne = sends(step).filter((send) => send.phase === 1);
    expect(phaseOne.map((send) => [send.dispatched, send.publish])).toEqual([[['e-slice'], false]]);
    expect(childrenToOrder(step.target, step.operation)).toEqual([
      {
        elementId: 'e-slice',
        state: {
          operationId: step.operation!.operationId,
          order: 'DEPLOY',
          outcome: 'RUNNING',
          childInstanceId: null,
          startedAt: T0 + 1,
        },
      },
    ]);
  });

  it('the child’s end completes the element with the child’s outputs and sends the next phase', () => {
    const done = ended(deploying(), true);
    const slice = done.target.elements['e-slice']!;
    expect(slice.deployState).toBe('DEPLOYED');
    expect(slice.outProperties['url']).toBe('http://slice');
    expect(storedNestedStateOf(slice.outProperties)).toMatchObject({
      outcome: 'COMPLETED',
      childInstanceId: 'child-1',
    });
    expect(events(done)).toEqual(expect.arrayContaining(['CHILD_ENDED', 'ELEMENT_RESULT', 'PHASE_COMPLETED']));
    expect(sends(done).map((send) => send.dispatched)).toEqual([['e-web']]);
    expect(childrenToOrder(done.target, done.operation)).toEqual([]);
  });

  it('a failed child fails the element and, with no retry policy, the operation', () => {
    const failed = ended(deploying(), false);
    expect(failed.target.elements['e-slice']?.deployState).toBe('UNDEPLOYED');
    expect(failed.target.elements['e-slice']?.message).toBe('child failed: e-x');
    expect(failed.operation?.state).toBe('FAILED');
  });

  it('an end for another operation changes nothing', () => {
    const step = deploying();
    const stale = ended(step, true, 'another-operation');
    expect(stale.target).toBe(step.target);
    expect(stale.effects.map((effect) => effect.kind)).toEqual(['IGNORE']);
  });

  it('an undeploy orders the child to undeploy, in reverse phase order', () => {
    const deployed = ended(deploying(), true);
    const web = decideInstance(
      deployed.target,
      deployed.operation,
      { kind: 'ACK', ack: ack(P1, ['e-web']), answered: null, dispatched: null },
      T0 + 3,
      context,
    );
    expect(web.operation?.state).toBe('COMPLETED');
    const undeploying = stepOf(decideInstance(web.target, null, { kind: 'ORDER', order: 'UNDEPLOY' }, T0 + 4, context));
    expect(events(undeploying)).not.toContain('CHILD_ORDERED');
    const afterWeb = decideInstance(
      undeploying.target,
      undeploying.operation,
      {
        kind: 'ACK',
        ack: {
          ...ack(P1, ['e-web']),
          reports: [{ elementId: 'e-web', deployState: 'UNDEPLOYED', lockState: 'NONE', message: null, result: true }],
        },
        answered: null,
        dispatched: null,
      },
      T0 + 5,
      context,
    );
    expect(childrenToOrder(afterWeb.target, afterWeb.operation).map((child) => child.state.order)).toEqual([
      'UNDEPLOY',
    ]);
  });
});

describe('an UPDATE of the parent reaches the child', () => {
  function deployedSite(): InstanceStep {
    const deployed = ended(deploying(), true);
    return stepOf(
      decideInstance(
        deployed.target,
        deployed.operation,
        { kind: 'ACK', ack: ack(P1, ['e-web']), answered: null, dispatched: null },
        T0 + 3,
        context,
      ),
    );
  }

  it('orders the child an UPDATE and completes the element only when the child’s update ended', () => {
    const site = deployedSite();
    expect(site.operation?.state).toBe('COMPLETED');
    const updating = stepOf(decideInstance(site.target, null, { kind: 'ORDER', order: 'UPDATE' }, T0 + 4, context));
    const toOrder = childrenToOrder(updating.target, updating.operation);
    expect(toOrder.map((child) => [child.elementId, child.state.order, child.state.outcome])).toEqual([
      ['e-slice', 'UPDATE', 'RUNNING'],
    ]);
    expect(events(updating)).toContain('CHILD_ORDERED');
    // Until the child's end, the element is updating and the operation runs.
    expect(updating.target.elements['e-slice']?.deployState).toBe('UPDATING');
    expect(updating.operation?.state).toBe('RUNNING');

    const done = ended(updating, true);
    expect(done.target.elements['e-slice']?.deployState).toBe('DEPLOYED');
    expect(storedNestedStateOf(done.target.elements['e-slice']!.outProperties)).toMatchObject({
      order: 'UPDATE',
      outcome: 'COMPLETED',
    });
    expect(events(done)).toContain('CHILD_ENDED');
  });

  it('a failed child update fails the element, which stays deployed', () => {
    const updating = stepOf(
      decideInstance(deployedSite().target, null, { kind: 'ORDER', order: 'UPDATE' }, T0 + 4, context),
    );
    const failed = ended(updating, false);
    expect(failed.target.elements['e-slice']?.deployState).toBe('DEPLOYED');
    expect(failed.target.elements['e-slice']?.message).toBe('child failed: e-x');
    expect(failed.operation?.state).toBe('FAILED');
  });
});

describe(childUpdateOf.name, () => {
  const child = {
    elements: {
      n: { ...element('n', 'Network'), properties: { site: { name: 'site-1' }, zones: [1, 2] } },
      g: element('g', 'Gateway'),
    },
  };

  it('is null when every child element holds what elementProperties gives it (key order aside)', () => {
    expect(childUpdateOf(child, { Network: { zones: [1, 2], site: { name: 'site-1' } } })).toBeNull();
    // A property no longer named is not removed: a deployed instance's update merges what it is given.
    expect(childUpdateOf(child, { Network: { zones: [1, 2] } })).toBeNull();
  });

  it('gives every child element its named properties when one of them changed', () => {
    expect(childUpdateOf(child, { Network: { site: { name: 'site-2' }, zones: [1, 2] } })).toEqual({
      n: { site: { name: 'site-2' }, zones: [1, 2] },
      g: {},
    });
    expect(childUpdateOf(child, { Network: { site: { name: 'site-1' }, zones: [2, 1] } })).not.toBeNull();
    expect(childUpdateOf(child, { Gateway: { port: 80 } })).toEqual({ n: {}, g: { port: 80 } });
  });
});
