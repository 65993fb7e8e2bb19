import type { AutomationComposition, CompositionDefinition, DomainError, InstanceElement } from '@acm/domain';
import type { PlanDigestInput, PlannedBody } from './plan-digest';
import { PLAN_ID_PATTERN, assertPlanCurrent, planIdOf } from './plan-digest';

const element: InstanceElement = {
  id: 'e-1',
  definition: { name: 'Db', version: '1.0.0' },
  participantId: 'p-1',
  deployState: 'DEPLOYED',
  lockState: 'LOCKED',
  subState: 'NONE',
  migrationState: 'DEFAULT',
  stage: null,
  operationalState: null,
  useState: null,
  description: null,
  message: null,
  properties: { size: 1 },
  outProperties: {},
};

const instance: AutomationComposition = {
  instanceId: 'i-1',
  compositionId: 'c-1',
  compositionTargetId: null,
  name: 'i',
  version: '1.0.0',
  description: null,
  derivedFrom: null,
  metadata: null,
  precheck: null,
  deployState: 'DEPLOYED',
  lockState: 'LOCKED',
  subState: 'NONE',
  stateChangeResult: 'NO_ERROR',
  phase: null,
  lastMsg: 1,
  revisionId: 'r-1',
  elements: { 'e-1': element },
};

const definition: CompositionDefinition = {
  compositionId: 'c-1',
  name: 'd',
  version: '1.0.0',
  serviceTemplate: {
    tosca_definitions_version: 'tosca_simple_yaml_1_3',
    node_types: { DbType: { properties: { password: { type: 'string', metadata: { sensitive: 'true' } } } } },
    topology_template: { node_templates: { Db: { type: 'DbType' } } },
  },
  state: 'PRIMED',
  stateChangeResult: 'NO_ERROR',
  lastMsg: 1,
  elementStateMap: {},
  revisionId: 'd-1',
};

const body: PlannedBody = {
  compositionId: 'c-1',
  name: 'i',
  version: '1.0.0',
  description: null,
  derivedFrom: null,
  metadata: null,
  elements: [
    { id: 'e-1', definition: { name: 'Db', version: '1.0.0' }, description: null, properties: { size: 2, a: 1 } },
  ],
};

const planned: PlanDigestInput = { instance, definitions: [definition], order: 'UPDATE', body };

function refusalOf(planId: string, input: PlanDigestInput): DomainError {
  try {
    assertPlanCurrent(planId, input);
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('the plan was taken for current');
}

describe('planIdOf', () => {
  it('is the same for the same inputs whatever the key order, and 48 hex characters', () => {
    const reordered: PlanDigestInput = {
      ...planned,
      body: {
        ...body,
        elements: [
          {
            id: 'e-1',
            definition: { version: '1.0.0', name: 'Db' },
            description: null,
            properties: { a: 1, size: 2 },
          },
        ],
      },
    };
    expect(planIdOf(planned)).toMatch(PLAN_ID_PATTERN);
    expect(planIdOf(reordered)).toBe(planIdOf(planned));
    expect(() => assertPlanCurrent(planIdOf(planned), reordered)).not.toThrow();
  });

  it('digests no sensitive value of the body: a planId carries nothing derived from a secret', () => {
    const withSecret = (password: string): PlanDigestInput => ({
      ...planned,
      body: {
        ...body,
        elements: [{ ...body.elements[0]!, properties: { size: 2, credentials: { user: 'u', password } } }],
      },
    });
    expect(planIdOf(withSecret('one'))).toBe(planIdOf(withSecret('two')));
    const changedUser = withSecret('one');
    const otherUser: PlanDigestInput = {
      ...changedUser,
      body: { ...body, elements: [{ ...body.elements[0]!, properties: { size: 2, credentials: { user: 'v' } } }] },
    };
    expect(planIdOf(otherUser)).not.toBe(planIdOf(changedUser));
  });

  it('digests no sensitive value of the stored instance either', () => {
    const stored = (password: string): PlanDigestInput => ({
      ...planned,
      instance: { ...instance, elements: { 'e-1': { ...element, properties: { size: 1, password } } } },
    });
    expect(planIdOf(stored('one'))).toBe(planIdOf(stored('two')));
  });

  it('ignores what participants report on their own (outProperties, lastMsg)', () => {
    const reported = {
      ...instance,
      lastMsg: 99,
      elements: { 'e-1': { ...element, outProperties: { url: 'u' }, operationalState: 'OK' } },
    };
    expect(planIdOf({ ...planned, instance: reported })).toBe(planIdOf(planned));
  });
});

describe('assertPlanCurrent', () => {
  const planId = planIdOf(planned);

  it('refuses with CONCURRENT_MODIFICATION naming the instance when its properties or revision changed', () => {
    const changed = { ...instance, elements: { 'e-1': { ...element, properties: { size: 5 } } } };
    const refusal = refusalOf(planId, { ...planned, instance: changed });
    expect(refusal.code).toBe('CONCURRENT_MODIFICATION');
    expect(refusal.message).toContain('the instance changed');
    expect(refusal.details['changed']).toEqual(['instance']);
    expect(refusalOf(planId, { ...planned, instance: { ...instance, revisionId: 'r-2' } }).details['changed']).toEqual([
      'instance',
    ]);
  });

  it('names the definition when it was primed again', () => {
    const refusal = refusalOf(planId, { ...planned, definitions: [{ ...definition, revisionId: 'd-2' }] });
    expect(refusal.details['changed']).toEqual(['definition']);
    expect(refusal.message).toContain('composition definition changed');
  });

  it('names the order when the body or the order differs', () => {
    const otherBody = { ...body, elements: [{ ...body.elements[0]!, properties: { size: 3 } }] };
    expect(refusalOf(planId, { ...planned, body: otherBody }).message).toContain('the order or its body differs');
    expect(refusalOf(planId, { ...planned, order: 'MIGRATE' }).details['changed']).toEqual(['order']);
  });

  it('names every part that changed', () => {
    const everything = refusalOf(planId, {
      instance: { ...instance, deployState: 'UNDEPLOYED' },
      definitions: [{ ...definition, state: 'COMMISSIONED' }],
      order: 'DEPLOY',
      body: null,
    });
    expect(everything.details['changed']).toEqual(['instance', 'definition', 'order']);
  });
});
