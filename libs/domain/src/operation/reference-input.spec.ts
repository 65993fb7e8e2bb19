import type { ControlSettings } from './instance-types';
import type { InstanceAck, InstanceStep } from './instance-types';
import { decideInstance } from './instance-operation';
import { MASKED_VALUE } from '../plan/instance-diff';
import { KNOWN_AFTER_DEPLOY } from '../instance/element-references';
import { planInstanceOrder } from '../plan/order-plan';
import type { ElementTemplate } from './topology';
import {
  P1,
  T0,
  contextOf,
  element,
  events,
  instanceOf,
  sends,
  stepOf,
  template,
  waitTemplate,
} from './testing/instance-fixtures';

const web: ElementTemplate = {
  ...template('web', 0),
  dependsOn: ['db'],
  properties: { baseUrl: { get_attribute: ['db', 'url'] }, secret: { get_attribute: ['db', 'password'] } },
  sensitive: ['secret'],
};
const db: ElementTemplate = { ...template('db', 0), sensitive: ['password'] };

function deployed(outProperties: Record<string, unknown>, retry = false): InstanceStep {
  const control: ControlSettings = {
    retryPolicy: { limit: 1, backoff: { durationMs: 500, factor: 2, maxDurationMs: 5_000 } },
    resend: { maxWaitMs: 1_000, maxRetryCount: 2 },
    noProgressTimeoutMs: 3_000,
  };
  const context = { ...contextOf([db, web]), ...(retry ? { control } : {}) };
  const ordered = decideInstance(
    instanceOf([element('e-db', 'db'), element('e-web', 'web')]),
    null,
    { kind: 'ORDER', order: 'DEPLOY' },
    T0,
    context,
  );
  const dbDone: InstanceAck = {
    participantId: P1,
    replicaId: null,
    responseTo: null,
    stateChangeResult: 'NO_ERROR',
    message: null,
    stage: null,
    reports: [{ elementId: 'e-db', deployState: 'DEPLOYED', lockState: 'LOCKED', outProperties, result: true }],
  };
  return decideInstance(
    ordered.target,
    ordered.operation,
    { kind: 'ACK', ack: dbDone, answered: null, dispatched: null },
    T0 + 1,
    context,
  );
}

describe('references at dispatch', () => {
  it('wait for the element they read, then record the values they read, sensitive ones masked', () => {
    const step = deployed({ url: 'postgres://db', password: 'pw' });

    expect(sends(step).map((send) => send.dispatched)).toEqual([['e-web']]);
    expect(step.effects).toContainEqual(
      expect.objectContaining({
        kind: 'RECORD_EVENT',
        event: 'REFERENCES_RESOLVED',
        detail: { elementId: 'e-web', values: { baseUrl: 'postgres://db', secret: MASKED_VALUE } },
      }),
    );
    expect(step.target.elements['e-web']?.deployState).toBe('DEPLOYING');
  });

  it('fail the element whose reference cannot be resolved, naming it, instead of sending it', () => {
    const step = deployed({ url: 'postgres://db' });

    expect(sends(step)).toEqual([expect.objectContaining({ dispatched: [], publish: false })]);
    expect(step.target.elements['e-web']).toMatchObject({
      deployState: 'UNDEPLOYED',
      message: 'get_attribute [db, password]: db has not reported password',
    });
    expect(step.target.stateChangeResult).toBe('FAILED');
    expect(step.operation?.state).toBe('FAILED');
    expect(events(step)).toEqual(['ELEMENT_RESULT', 'ELEMENT_RESULT', 'FAILED']);
  });

  it('leave a failure to the retry policy like any failed element', () => {
    const step = deployed({}, true);

    expect(events(step)).toContain('RETRY_SCHEDULED');
    expect(step.operation?.state).toBe('RUNNING');
  });

  it('change nothing in a composition without references', () => {
    const context = contextOf([template('db', 0), template('web', 0, ['db'])]);
    const step = decideInstance(
      instanceOf([element('e-db', 'db'), element('e-web', 'web')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );

    expect(events(step)).toEqual(['ORDERED']);
  });
});

describe('references in a plan', () => {
  const plan = (dbOut: Record<string, unknown>) =>
    planInstanceOrder({
      order: 'DEPLOY',
      instance: instanceOf([{ ...element('e-db', 'db'), outProperties: dbOut }, element('e-web', 'web')]),
      templates: [db, { ...web, sensitive: [] }],
    });

  it('show a value not reported yet as known after deploy, after the element it reads', () => {
    expect(plan({}).steps.map((step) => step.elements.map(({ name, references }) => ({ name, references })))).toEqual([
      [{ name: 'db', references: undefined }],
      [{ name: 'web', references: { baseUrl: KNOWN_AFTER_DEPLOY, secret: MASKED_VALUE } }],
    ]);
  });

  it('show the value already reported', () => {
    expect(plan({ url: 'postgres://db' }).steps[1]?.elements[0]?.references).toEqual({
      baseUrl: 'postgres://db',
      secret: MASKED_VALUE,
    });
  });
});

describe('references in an update', () => {
  const deployedElement = (id: string, name: string, outProperties: Record<string, unknown> = {}) => ({
    ...element(id, name),
    deployState: 'DEPLOYED' as const,
    lockState: 'LOCKED' as const,
    outProperties,
  });
  const updating = (dbOut: Record<string, unknown>) =>
    decideInstance(
      {
        ...instanceOf([deployedElement('e-db', 'db', dbOut), deployedElement('e-web', 'web')]),
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
      },
      null,
      { kind: 'ORDER', order: 'UPDATE' },
      T0,
      contextOf([db, web]),
    );

  it('resolve what the elements read when the update sets them going', () => {
    expect(updating({ url: 'postgres://db', password: 'pw' }).effects).toContainEqual(
      expect.objectContaining({
        event: 'REFERENCES_RESOLVED',
        detail: { elementId: 'e-web', values: { baseUrl: 'postgres://db', secret: MASKED_VALUE } },
      }),
    );
  });

  it('fail an element whose reference cannot be resolved, leaving it deployed', () => {
    const step = updating({ url: 'postgres://db' });

    expect(step.target.elements['e-web']).toMatchObject({
      deployState: 'DEPLOYED',
      lockState: 'LOCKED',
      message: 'get_attribute [db, password]: db has not reported password',
    });
    expect(step.target.stateChangeResult).toBe('FAILED');
  });
});

describe('references after a wait condition', () => {
  it('fail an element its completion sets going when what it reads was never reported', () => {
    const context = contextOf([
      waitTemplate('gate', 0, { count: 1 }),
      { ...template('web', 0), dependsOn: ['gate'], properties: { token: { get_attribute: ['gate', 'token'] } } },
    ]);
    const ordered = decideInstance(
      instanceOf([element('e-gate', 'gate', null), element('e-web', 'web')]),
      null,
      { kind: 'ORDER', order: 'DEPLOY' },
      T0,
      context,
    );
    const step = stepOf(
      decideInstance(
        ordered.target,
        ordered.operation,
        { kind: 'SIGNAL', elementId: 'e-gate', signal: { id: 's-1', status: 'SUCCESS', reason: null } },
        T0 + 1,
        context,
      ),
    );

    expect(step.target.elements['e-web']?.message).toBe('get_attribute [gate, token]: gate has not reported token');
    expect(step.operation?.state).toBe('FAILED');
  });
});
