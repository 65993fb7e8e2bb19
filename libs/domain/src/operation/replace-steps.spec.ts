import type { AutomationComposition, InstanceElement, JsonObject } from '../model';
import type { InstanceOperation } from '../ports/engine.port';
import { checkOrderMayStart } from '../instance/order-checks';
import { decideInstance } from './instance-operation';
import type { InstanceAck, InstanceStep, InstanceStepContext } from './instance-types';
import type { ReplaceUpdate } from './replace-steps';
import {
  REPLACE_PHASE_STRIDE,
  replacePhaseProblems,
  replaceRollbackProblem,
  replaceStepOf,
  updatePhaseOf,
} from './replace-steps';
import {
  P1,
  T0,
  contextOf,
  element,
  events,
  instanceOf,
  runningAfter,
  sends,
  template,
  waitTemplate,
} from './testing/instance-fixtures';
import type { ElementTemplate } from './topology';

/** What the participants were sent, message by message: the order on the wire, its start phase, its elements. */
type Sent = [order: string, startPhase: number, elementIds: string[]];

function deployed(id: string, name: string, properties: JsonObject): InstanceElement {
  return { ...element(id, name), deployState: 'DEPLOYED', lockState: 'LOCKED', properties };
}

function replaceable(
  name: string,
  startPhase: number,
  dependsOn: string[] = [],
  createBeforeDestroy = false,
): ElementTemplate {
  return {
    ...template(name, startPhase, dependsOn),
    replaceOn: ['zone'],
    ...(createBeforeDestroy ? { createBeforeDestroy } : {}),
  };
}

const REPORTED: Record<string, Pick<InstanceElement, 'deployState' | 'lockState'>> = {
  UNDEPLOY: { deployState: 'UNDEPLOYED', lockState: 'NONE' },
  DELETE: { deployState: 'DELETED', lockState: 'NONE' },
  DEPLOY: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
  UPDATE: { deployState: 'DEPLOYED', lockState: 'LOCKED' },
};

/**
 * Runs an UPDATE to its end, the participant answering every element of each message at once, and returns what was
 * sent, the history's event kinds and the instance at the end.
 */
function runUpdate(
  instance: AutomationComposition,
  replace: ReplaceUpdate,
  context: InstanceStepContext,
): { sent: Sent[]; events: string[]; last: InstanceStep } {
  const deployedInstance: AutomationComposition = { ...instance, deployState: 'DEPLOYED', lockState: 'LOCKED' };
  let step = decideInstance(deployedInstance, null, { kind: 'ORDER', order: 'UPDATE', replace }, T0, context);
  const sent: Sent[] = [];
  const kinds = [...events(step)];
  const queue = [...sends(step)];
  while (queue.length > 0) {
    const send = queue.shift()!;
    const order = send.step?.order ?? 'UPDATE';
    sent.push([order, send.step?.startPhase ?? send.phase, [...send.dispatched]]);
    for (const elementId of send.dispatched) {
      const operation = runningAfter(step) as InstanceOperation;
      const answer: InstanceAck = {
        participantId: P1,
        replicaId: null,
        responseTo: null,
        stateChangeResult: 'NO_ERROR',
        message: null,
        stage: null,
        reports: [{ elementId, ...REPORTED[order]!, result: true }],
      };
      step = decideInstance(
        step.target,
        operation,
        { kind: 'ACK', ack: answer, answered: { operation, phase: send.phase }, dispatched: null },
        T0 + 1,
        context,
      );
      kinds.push(...events(step));
      queue.push(...sends(step));
    }
  }
  return { sent, events: kinds, last: step };
}

function elementsAfter(step: InstanceStep): Array<[string, string, JsonObject]> {
  return Object.values(step.target.elements)
    .map((item): [string, string, JsonObject] => [item.id, item.deployState, item.properties])
    .sort(([a], [b]) => a.localeCompare(b));
}

describe('a replacing UPDATE', () => {
  it('undeploys replaced elements and orphans in reverse order, deletes the orphans, deploys forward, then updates', () => {
    const context = contextOf([
      replaceable('db', 0),
      replaceable('web', 0, ['db']),
      replaceable('api', 1),
      replaceable('job', 0),
    ]);
    const instance = instanceOf([
      deployed('e-db', 'db', { zone: 'a' }),
      deployed('e-web', 'web', { zone: 'a', url: 'http://web' }),
      deployed('e-api', 'api', { zone: 'a' }),
      deployed('e-job', 'job', { zone: 'a' }),
    ]);

    const run = runUpdate(
      instance,
      {
        next: { 'e-db': { zone: 'b' }, 'e-web': { zone: 'a', url: 'http://web2' }, 'e-api': { zone: 'b' } },
        removeOrphans: true,
      },
      context,
    );

    expect(run.sent).toEqual([
      ['UNDEPLOY', 1, ['e-api']],
      ['UNDEPLOY', 0, ['e-db', 'e-job']],
      ['DELETE', 0, ['e-job']],
      ['DEPLOY', 0, ['e-db']],
      ['DEPLOY', 1, ['e-api']],
      ['UPDATE', 0, ['e-web']],
    ]);
    expect(run.last.operation).toMatchObject({ order: 'UPDATE', state: 'COMPLETED' });
    expect(run.last.target.deployState).toBe('DEPLOYED');
    expect(Object.keys(run.last.target.elements).sort()).toEqual(['e-api', 'e-db', 'e-web']);
    expect(elementsAfter(run.last)).toEqual([
      ['e-api', 'DEPLOYED', { zone: 'b' }],
      ['e-db', 'DEPLOYED', { zone: 'b' }],
      ['e-web', 'DEPLOYED', { zone: 'a', url: 'http://web2' }],
    ]);
    expect(run.events.slice(0, 4)).toEqual(['ORDERED', 'REPLACE_PLANNED', 'REPLACE_PLANNED', 'REPLACE_PLANNED']);
    expect(run.events.at(-1)).toBe('COMPLETED');
  });

  it('names the property that forces each replace, and each orphan, in the history', () => {
    const context = contextOf([replaceable('db', 0), replaceable('job', 0)]);
    const instance = instanceOf([deployed('e-db', 'db', { zone: 'a' }), deployed('e-job', 'job', {})]);
    const step = decideInstance(
      { ...instance, deployState: 'DEPLOYED', lockState: 'LOCKED' },
      null,
      { kind: 'ORDER', order: 'UPDATE', replace: { next: { 'e-db': { zone: 'b' } }, removeOrphans: true } },
      T0,
      context,
    );

    expect(
      step.effects.flatMap((effect) =>
        effect.kind === 'RECORD_EVENT' && effect.event === 'REPLACE_PLANNED' ? [effect.detail] : [],
      ),
    ).toEqual([
      { elementId: 'e-db', change: 'REPLACE', forcedBy: ['zone'], replacementId: null },
      { elementId: 'e-job', change: 'ORPHAN', forcedBy: [], replacementId: null },
    ]);
    // An orphan carries the REMOVED mark until its DELETE is answered.
    expect(step.target.elements['e-job']).toMatchObject({ migrationState: 'REMOVED', deployState: 'UNDEPLOYING' });
    // The steps are phases below 0, which the instance shows while they run.
    expect(step.target.phase).toBeLessThan(0);
    expect(step.operation?.phase).toBe(step.target.phase);
  });

  it('follows dependsOn inside a phase: destroys dependents first, creates dependencies first', () => {
    const context = contextOf([replaceable('a', 0), replaceable('b', 0, ['a']), replaceable('c', 0, ['b'])]);
    const instance = instanceOf([
      deployed('e-a', 'a', { zone: 'x' }),
      deployed('e-b', 'b', { zone: 'x' }),
      deployed('e-c', 'c', { zone: 'x' }),
    ]);

    const run = runUpdate(
      instance,
      { next: { 'e-a': { zone: 'y' }, 'e-b': { zone: 'y' }, 'e-c': { zone: 'y' } }, removeOrphans: false },
      context,
    );

    expect(run.sent).toEqual([
      ['UNDEPLOY', 0, ['e-c']],
      ['UNDEPLOY', 0, ['e-b']],
      ['UNDEPLOY', 0, ['e-a']],
      ['DEPLOY', 0, ['e-a']],
      ['DEPLOY', 0, ['e-b']],
      ['DEPLOY', 0, ['e-c']],
    ]);
  });

  it('with createBeforeDestroy deploys a new element first, then undeploys and deletes the old one', () => {
    const context = contextOf([replaceable('db', 0, [], true), replaceable('web', 1)]);
    const instance = instanceOf([deployed('e-db', 'db', { zone: 'a' }), deployed('e-web', 'web', { zone: 'a' })]);

    const run = runUpdate(instance, { next: { 'e-db': { zone: 'b' } }, removeOrphans: false }, context);

    expect(run.sent).toEqual([
      ['DEPLOY', 0, ['id-1']],
      ['UNDEPLOY', 0, ['e-db']],
      ['DELETE', 0, ['e-db']],
    ]);
    expect(elementsAfter(run.last)).toEqual([
      ['e-web', 'DEPLOYED', { zone: 'a' }],
      ['id-1', 'DEPLOYED', { zone: 'b' }],
    ]);
  });

  it('runs as ONAP UPDATE, one message for every element in phase 0, when nothing is replaced or removed', () => {
    const context = contextOf([replaceable('db', 0), template('web', 1)]);
    const instance = instanceOf([deployed('e-db', 'db', { zone: 'a', url: 'u' }), deployed('e-web', 'web', {})]);

    const run = runUpdate(instance, { next: { 'e-db': { zone: 'a', url: 'v' } }, removeOrphans: false }, context);

    expect(run.sent).toEqual([['UPDATE', 0, ['e-db']]]);
    expect(run.last.operation).toMatchObject({ state: 'COMPLETED' });
  });
});

describe('a replaced wait condition', () => {
  it('completes its undeploy at once and waits again in the DEPLOY step, as a deploy does', () => {
    const context = contextOf([{ ...waitTemplate('approval', 0, { count: 1 }), replaceOn: ['zone'] }]);
    const approval = { ...deployed('e-w', 'approval', { zone: 'a' }), participantId: null };
    const instance = { ...instanceOf([approval]), deployState: 'DEPLOYED' as const, lockState: 'LOCKED' as const };

    const step = decideInstance(
      instance,
      null,
      { kind: 'ORDER', order: 'UPDATE', replace: { next: { 'e-w': { zone: 'b' } }, removeOrphans: false } },
      T0,
      context,
    );

    expect(events(step)).toEqual(expect.arrayContaining(['REPLACE_PLANNED', 'ELEMENT_RESULT', 'WAIT_STARTED']));
    expect(events(step).indexOf('ELEMENT_RESULT')).toBeLessThan(events(step).indexOf('WAIT_STARTED'));
    expect(step.target.elements['e-w']).toMatchObject({ deployState: 'DEPLOYING', properties: { zone: 'b' } });
    expect(step.operation).toMatchObject({ state: 'RUNNING' });
  });
});

describe('a replacing UPDATE that failed', () => {
  it('is taken up again by a retry: the element left undeployed is deployed, even if no property changes any more', () => {
    const context = contextOf([replaceable('db', 0)]);
    const instance = { ...instanceOf([deployed('e-db', 'db', { zone: 'a' })]), deployState: 'DEPLOYED' as const };
    const replace: ReplaceUpdate = { next: { 'e-db': { zone: 'b' } }, removeOrphans: false };
    const started = decideInstance(instance, null, { kind: 'ORDER', order: 'UPDATE', replace }, T0, context);
    const answer = (step: InstanceStep, report: Pick<InstanceElement, 'deployState' | 'lockState'>, ok: boolean) => {
      const operation = step.operation!;
      const phase = sends(step)[0]!.phase;
      const ack: InstanceAck = {
        participantId: P1,
        replicaId: null,
        responseTo: null,
        stateChangeResult: ok ? 'NO_ERROR' : 'FAILED',
        message: ok ? null : 'no room in zone b',
        stage: null,
        reports: [{ elementId: 'e-db', ...report, result: ok }],
      };
      return decideInstance(
        step.target,
        operation,
        { kind: 'ACK', ack, answered: { operation, phase }, dispatched: null },
        T0,
        context,
      );
    };
    const undeployed = answer(started, { deployState: 'UNDEPLOYED', lockState: 'NONE' }, true);
    const failed = answer(undeployed, { deployState: 'UNDEPLOYED', lockState: 'NONE' }, false);

    expect(failed.operation).toMatchObject({ state: 'FAILED' });
    expect(failed.target).toMatchObject({ deployState: 'UPDATING', stateChangeResult: 'FAILED' });
    expect(failed.target.elements['e-db']).toMatchObject({ deployState: 'UNDEPLOYED', properties: { zone: 'b' } });

    const retried = decideInstance(failed.target, null, { kind: 'ORDER', order: 'UPDATE', replace }, T0 + 2, context);

    expect(sends(retried).map((send) => [send.step?.order, [...send.dispatched]])).toEqual([['DEPLOY', ['e-db']]]);
  });
});

describe('a retried replacing UPDATE with an orphan left half-way', () => {
  it('deletes an orphan whose undeploy was done, and undeploys one whose undeploy was not', () => {
    const context = contextOf([replaceable('db', 0), replaceable('job', 0), replaceable('log', 0)]);
    const removed = (id: string, name: string, deployState: InstanceElement['deployState']): InstanceElement => ({
      ...deployed(id, name, {}),
      migrationState: 'REMOVED',
      deployState,
      lockState: 'NONE',
    });
    const instance = {
      ...instanceOf([
        deployed('e-db', 'db', {}),
        removed('e-job', 'job', 'DELETING'),
        removed('e-log', 'log', 'DEPLOYED'),
      ]),
      deployState: 'UPDATING' as const,
      lockState: 'LOCKED' as const,
      stateChangeResult: 'FAILED' as const,
    };

    const step = decideInstance(
      instance,
      null,
      { kind: 'ORDER', order: 'UPDATE', replace: { next: { 'e-db': {} }, removeOrphans: true } },
      T0,
      context,
    );

    // The retry is allowed although elements are REMOVED (a migration's marks would block it).
    expect(checkOrderMayStart('UPDATE', instance)).toBe(true);
    expect(() => checkOrderMayStart('UPDATE', { ...instance, deployState: 'DEPLOYED' as const })).toThrow(
      /is in migrationState REMOVED/,
    );
    expect(sends(step).map((send) => [send.step?.order, [...send.dispatched]])).toEqual([['UNDEPLOY', ['e-log']]]);
    expect(step.target.elements['e-job']).toMatchObject({ deployState: 'DELETING', lockState: 'NONE' });
  });
});

describe('the phases of the replace steps', () => {
  it('round-trip every step and start phase, and put every step before phase 0', () => {
    const templateAt = (startPhase: number, createBeforeDestroy = false): ElementTemplate => ({
      ...template('t', startPhase),
      createBeforeDestroy,
    });
    for (const startPhase of [0, 1, 7, REPLACE_PHASE_STRIDE - 1]) {
      const states: Array<[InstanceElement, boolean, string]> = [
        [{ ...element('e', 't'), deployState: 'UNDEPLOYING' }, false, 'UNDEPLOY'],
        [{ ...element('e', 't'), deployState: 'DELETING', migrationState: 'REMOVED' }, false, 'DELETE'],
        [{ ...element('e', 't'), deployState: 'DEPLOYING' }, false, 'DEPLOY'],
        [{ ...element('e', 't'), deployState: 'UNDEPLOYING', migrationState: 'REMOVED' }, true, 'UNDEPLOY'],
        [{ ...element('e', 't'), deployState: 'DELETING', migrationState: 'REMOVED' }, true, 'DELETE'],
      ];
      const phases = states.map(([item, late, order]) => {
        const phase = updatePhaseOf(item, templateAt(startPhase, late));
        expect(replaceStepOf(phase)).toMatchObject({ order, startPhase });
        return phase;
      });
      expect(phases.every((phase) => phase < 0)).toBe(true);
      expect([...phases].sort((a, b) => a - b)).toEqual(phases);
    }
    expect(updatePhaseOf({ ...element('e', 't'), deployState: 'UPDATING' }, templateAt(3))).toBe(0);
    expect(replaceStepOf(0)).toBeNull();
  });
});

describe('what a replacing UPDATE cannot do', () => {
  it('refuses a start phase its phases cannot encode', () => {
    expect(replacePhaseProblems([replaceable('db', 3)])).toEqual([]);
    expect(replacePhaseProblems([replaceable('db', REPLACE_PHASE_STRIDE)])).toEqual([
      `element db: startPhase ${REPLACE_PHASE_STRIDE} is too high for an UPDATE that replaces or removes elements (at most ${REPLACE_PHASE_STRIDE - 1})`,
    ]);
  });

  it('lets a rollback undo changes in place only: not a replace, an orphan, or what a failed replace left', () => {
    const templates = [replaceable('db', 0), template('web', 0)];
    const snapshot = {
      'e-db': deployed('e-db', 'db', { zone: 'a', url: 'u' }),
      'e-web': deployed('e-web', 'web', { url: 'u' }),
    };
    const inPlace = {
      'e-db': { ...deployed('e-db', 'db', { zone: 'a', url: 'v' }), deployState: 'UPDATING' as const },
      'e-web': deployed('e-web', 'web', { url: 'v' }),
    };

    expect(replaceRollbackProblem(inPlace, snapshot, templates)).toBeNull();
    expect(
      replaceRollbackProblem(
        { ...inPlace, 'e-db': deployed('e-db', 'db', { zone: 'b', url: 'u' }) },
        snapshot,
        templates,
      ),
    ).toBe(
      'a rollback cannot undo a replace or an orphan removal (element e-db would change zone in place): send an UPDATE with the values wanted instead',
    );
    expect(
      replaceRollbackProblem(
        { 'e-db': { ...deployed('e-db', 'db', { zone: 'a', url: 'u' }), deployState: 'UNDEPLOYED' } },
        snapshot,
        templates,
      ),
    ).toBe(
      'a rollback cannot undo a replace or an orphan removal (elements e-db are undeployed or being removed; elements e-web were removed): send an UPDATE with the values wanted instead',
    );
  });
});
