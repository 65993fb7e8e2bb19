import type { AutomationComposition, CompositionDefinition } from '../model';
import type { Mapped } from './onap-mapping';
import { definitionFromOnap, instanceFromOnap, participantFromOnap, serviceTemplateFromOnap } from './onap-mapping';
import { planOnapImport, sameData } from './onap-import-plan';
import type { OnapDefinitionRow, OnapElementRow, OnapInstanceRow, OnapNodeTemplateStateRow } from './onap-rows';
import { onapSchemaVersion, ONAP_TABLES } from './onap-schema';

const DEF = 'aaaaaaaa-0000-4000-8000-000000000001';
const INST = 'bbbbbbbb-0000-4000-8000-000000000001';
const EL1 = 'cccccccc-0000-4000-8000-000000000002';
const EL2 = 'cccccccc-0000-4000-8000-000000000001';
const PPNT = 'dddddddd-0000-4000-8000-000000000001';
const REV = 'eeeeeeee-0000-4000-8000-000000000001';

/** A Doc-form template as ONAP stores it: maps keyed `name:version`, with `toscaEntity` copies. */
const DOC_TEMPLATE = {
  tosca_definitions_version: 'tosca_simple_yaml_1_3',
  name: 'Tiny',
  version: '2.0.0',
  toscaEntity: { name: 'Tiny' },
  node_types: {
    'acme.Element:1.0.0': { name: 'acme.Element', version: '1.0.0', derived_from: 'tosca.nodetypes.Root' },
  },
  topology_template: {
    node_templates: {
      'acme.one:1.2.3': {
        name: 'acme.one',
        version: '1.2.3',
        type: 'acme.Element',
        toscaEntity: { name: 'acme.one' },
      },
    },
    policies: { 'acme.policy:1.0.0': { name: 'acme.policy', type: 'acme.Policy' } },
  },
};

function definitionRow(overrides: Partial<OnapDefinitionRow> = {}): OnapDefinitionRow {
  return {
    compositionId: DEF,
    name: 'Tiny',
    version: '2.0.0',
    serviceTemplate: JSON.stringify(DOC_TEMPLATE),
    state: 2,
    stateChangeResult: 0,
    lastMsg: 1_700_000_000_123.9,
    revisionId: REV,
    ...overrides,
  };
}

function stateRow(overrides: Partial<OnapNodeTemplateStateRow> = {}): OnapNodeTemplateStateRow {
  return {
    nodeTemplateStateId: 'ffffffff-0000-4000-8000-000000000001',
    compositionId: DEF,
    message: 'Primed',
    nodeTemplateName: 'acme.one',
    nodeTemplateVersion: '1.2.3',
    outProperties: '{"primedBy":"ppnt"}',
    participantId: PPNT,
    state: 2,
    ...overrides,
  };
}

function instanceRow(overrides: Partial<OnapInstanceRow> = {}): OnapInstanceRow {
  return {
    instanceId: INST,
    compositionId: DEF,
    compositionTargetId: null,
    name: 'Tiny-1',
    version: '1.0.0',
    description: 'one instance',
    deployState: 0,
    lockState: 0,
    subState: 0,
    stateChangeResult: 0,
    phase: null,
    lastMsg: 1_700_000_001_000,
    revisionId: REV,
    ...overrides,
  };
}

function elementRow(elementId: string, overrides: Partial<OnapElementRow> = {}): OnapElementRow {
  return {
    elementId,
    instanceId: INST,
    definitionName: 'acme.one',
    definitionVersion: '1.2.3',
    participantId: PPNT,
    deployState: 0,
    lockState: 0,
    subState: 0,
    migrationState: 0,
    stage: null,
    operationalState: 'ENABLED',
    useState: null,
    description: 'an element',
    message: 'Deployed',
    properties: '{"size":3,"nested":{"a":[1,2]}}',
    outProperties: '{"InternalState":"DEPLOYED"}',
    ...overrides,
  };
}

function value<T>(result: Mapped<T>): T {
  if (!result.ok) {
    throw new Error(`expected a mapping, got: ${result.reason}`);
  }
  return result.value;
}

function reason<T>(result: Mapped<T>): string {
  if (result.ok) {
    throw new Error('expected a refusal');
  }
  return result.reason;
}

describe('ONAP schema version', () => {
  const tables = [...ONAP_TABLES, 'databasechangelog'];

  it('reads the last release tag of databasechangelog', () => {
    expect(onapSchemaVersion({ tables, changelogTags: [null, '1400', null, '1701', '1801'] })).toEqual({
      ok: true,
      version: '1801',
    });
  });

  it('refuses another version, naming it', () => {
    const verdict = onapSchemaVersion({ tables, changelogTags: ['1400', '1500', '1702'] });
    expect(verdict).toMatchObject({ ok: false, version: '1702' });
    expect(verdict.ok ? '' : verdict.reason).toContain('ONAP schema version 1702');
  });

  it('refuses a schema without changelog, and one that is not ONAP at all', () => {
    expect(onapSchemaVersion({ tables: [...ONAP_TABLES], changelogTags: null })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no databasechangelog table') as unknown,
    });
    expect(onapSchemaVersion({ tables: ['other'], changelogTags: null })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not an ONAP ACM') as unknown,
    });
  });

  it('refuses a 1801 changelog whose tables are missing', () => {
    const verdict = onapSchemaVersion({ tables: ['databasechangelog', 'participant'], changelogTags: ['1801'] });
    expect(verdict.ok ? '' : verdict.reason).toContain('lacks table(s) automationcompositiondefinition');
  });
});

describe('service template from ONAP', () => {
  it('keys types and node templates by name, drops toscaEntity and makes policies a list', () => {
    const template = serviceTemplateFromOnap(DOC_TEMPLATE, DEF);
    expect(template).toEqual({
      tosca_definitions_version: 'tosca_simple_yaml_1_3',
      name: 'Tiny',
      version: '2.0.0',
      metadata: { compositionId: DEF },
      node_types: { 'acme.Element': { name: 'acme.Element', version: '1.0.0', derived_from: 'tosca.nodetypes.Root' } },
      topology_template: {
        node_templates: { 'acme.one': { name: 'acme.one', version: '1.2.3', type: 'acme.Element' } },
        policies: [{ 'acme.policy': { name: 'acme.policy', type: 'acme.Policy' } }],
      },
    });
  });

  it('refuses two versions of one node template', () => {
    const twice = {
      topology_template: { node_templates: { 'a:1.0.0': { type: 't' }, 'a:2.0.0': { type: 't' } } },
    };
    const result = definitionFromOnap(definitionRow({ serviceTemplate: JSON.stringify(twice) }), [], 'refuse');
    expect(reason(result)).toContain('two versions of a');
  });
});

describe('definition from ONAP', () => {
  it('maps the row, its ordinals and its node template states', () => {
    const definition: CompositionDefinition = value(definitionFromOnap(definitionRow(), [stateRow()], 'refuse'));
    expect(definition).toMatchObject({
      compositionId: DEF,
      name: 'Tiny',
      version: '2.0.0',
      state: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
      lastMsg: 1_700_000_000_123,
      revisionId: REV,
    });
    expect(definition.elementStateMap).toEqual({
      'acme.one': {
        nodeTemplateStateId: 'ffffffff-0000-4000-8000-000000000001',
        participantId: PPNT,
        nodeTemplateId: { name: 'acme.one', version: '1.2.3' },
        state: 'PRIMED',
        message: 'Primed',
        outProperties: { primedBy: 'ppnt' },
      },
    });
  });

  it('refuses a row that does not parse, naming the column', () => {
    expect(reason(definitionFromOnap(definitionRow({ serviceTemplate: '{not json' }), [], 'refuse'))).toBe(
      'servicetemplate is not JSON',
    );
    expect(reason(definitionFromOnap(definitionRow({ state: 9 }), [], 'refuse'))).toContain('state 9 is not one of');
    expect(reason(definitionFromOnap(definitionRow({ compositionId: 'x-1' }), [], 'refuse'))).toContain(
      'compositionid "x-1" is not a UUID',
    );
    expect(reason(definitionFromOnap(definitionRow(), [stateRow({ outProperties: '[1]' })], 'refuse'))).toBe(
      'nodetemplatestate.outproperties is not a JSON object',
    );
  });

  it('refuses PRIMING in flight unless told how, then imports it as FAILED or as PRIMED', () => {
    const priming = definitionRow({ state: 1 });
    const primingState = stateRow({ state: 1 });
    expect(reason(definitionFromOnap(priming, [primingState], 'refuse'))).toContain('PRIMING is a transition');
    const failed = definitionFromOnap(priming, [primingState], 'as-failed');
    expect(value(failed)).toMatchObject({ state: 'PRIMING', stateChangeResult: 'FAILED' });
    const target = value(definitionFromOnap(priming, [primingState], 'as-target'));
    expect(target.state).toBe('PRIMED');
    expect(target.elementStateMap['acme.one']?.state).toBe('PRIMED');
  });

  it('imports a PRIMING that ONAP already failed as it is', () => {
    const failed = value(definitionFromOnap(definitionRow({ state: 1, stateChangeResult: 1 }), [], 'refuse'));
    expect(failed).toMatchObject({ state: 'PRIMING', stateChangeResult: 'FAILED' });
  });
});

describe('instance from ONAP', () => {
  it('maps the instance and its elements in the order of their ids', () => {
    const instance: AutomationComposition = value(
      instanceFromOnap(instanceRow(), [elementRow(EL1), elementRow(EL2, { stage: 2, migrationState: 2 })], 'refuse'),
    );
    expect(instance).toMatchObject({
      instanceId: INST,
      compositionId: DEF,
      compositionTargetId: null,
      name: 'Tiny-1',
      version: '1.0.0',
      deployState: 'DEPLOYED',
      lockState: 'LOCKED',
      subState: 'NONE',
      stateChangeResult: 'NO_ERROR',
      revisionId: REV,
      lastMsg: 1_700_000_001_000,
    });
    expect(Object.keys(instance.elements)).toEqual([EL2, EL1]);
    expect(instance.elements[EL2]).toMatchObject({
      stage: 2,
      migrationState: 'NEW',
      properties: { size: 3, nested: { a: [1, 2] } },
      outProperties: { InternalState: 'DEPLOYED' },
      operationalState: 'ENABLED',
    });
  });

  it('refuses the whole instance when one element row does not parse', () => {
    const result = instanceFromOnap(
      instanceRow(),
      [elementRow(EL1), elementRow(EL2, { properties: 'oops' })],
      'refuse',
    );
    expect(reason(result)).toBe(`element ${EL2} properties is not JSON`);
    expect(reason(instanceFromOnap(instanceRow(), [], 'refuse'))).toBe('it has no element rows');
  });

  it('imports a transition ONAP failed as it is (DEPLOYING with FAILED)', () => {
    const failed = value(
      instanceFromOnap(
        instanceRow({ deployState: 1, lockState: 4, stateChangeResult: 1, phase: 0 }),
        [elementRow(EL1, { deployState: 2, lockState: 4 })],
        'refuse',
      ),
    );
    expect(failed).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'FAILED', phase: 0 });
  });

  it('refuses a transition in flight unless told how', () => {
    const undeploying = instanceRow({ deployState: 3, lockState: 4, phase: 0 });
    const elements = [elementRow(EL1, { deployState: 3, lockState: 4 })];
    expect(reason(instanceFromOnap(undeploying, elements, 'refuse'))).toContain(
      'UNDEPLOYING is a transition ONAP was still running',
    );
    expect(value(instanceFromOnap(undeploying, elements, 'as-failed'))).toMatchObject({
      deployState: 'UNDEPLOYING',
      stateChangeResult: 'FAILED',
    });
    const done = value(instanceFromOnap(undeploying, elements, 'as-target'));
    expect(done).toMatchObject({ deployState: 'UNDEPLOYED', lockState: 'NONE', phase: null });
    expect(done.elements[EL1]).toMatchObject({ deployState: 'UNDEPLOYED', lockState: 'NONE' });
  });

  it('completes a lock, a deploy and a sub state as-target, and never a migration or a delete', () => {
    const unlocking = instanceRow({ lockState: 3 });
    expect(value(instanceFromOnap(unlocking, [elementRow(EL1, { lockState: 3 })], 'as-target'))).toMatchObject({
      deployState: 'DEPLOYED',
      lockState: 'UNLOCKED',
    });
    const deploying = value(
      instanceFromOnap(
        instanceRow({ deployState: 1, lockState: 4 }),
        [elementRow(EL1, { deployState: 1 })],
        'as-target',
      ),
    );
    expect(deploying).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED' });
    const reviewing = value(instanceFromOnap(instanceRow({ subState: 3 }), [elementRow(EL1)], 'as-target'));
    expect(reviewing.subState).toBe('NONE');
    expect(reason(instanceFromOnap(instanceRow({ deployState: 7 }), [elementRow(EL1)], 'as-target'))).toContain(
      'MIGRATING cannot be completed by an import',
    );
    expect(reason(instanceFromOnap(instanceRow({ deployState: 4 }), [elementRow(EL1)], 'as-target'))).toContain(
      'DELETING cannot be completed',
    );
  });
});

describe('participant from ONAP', () => {
  it('keeps the supported element types and none of ONAP’s replicas', () => {
    const participant = value(
      participantFromOnap({ participantId: PPNT.toUpperCase() }, [
        {
          id: 'ffffffff-0000-4000-8000-00000000000a',
          participantId: PPNT,
          typeName: 'acme.Element',
          typeVersion: '1.0.0',
        },
      ]),
    );
    expect(participant).toEqual({
      participantId: PPNT,
      participantSupportedElementTypes: {
        'ffffffff-0000-4000-8000-00000000000a': {
          id: 'ffffffff-0000-4000-8000-00000000000a',
          typeName: 'acme.Element',
          typeVersion: '1.0.0',
        },
      },
      replicas: {},
    });
  });
});

describe('import plan', () => {
  it('groups rows by owner and refuses an instance whose definition is refused', () => {
    const other = 'aaaaaaaa-0000-4000-8000-000000000002';
    const plan = planOnapImport(
      {
        definitions: [definitionRow(), definitionRow({ compositionId: other, serviceTemplate: 'broken' })],
        nodeTemplateStates: [stateRow(), stateRow({ compositionId: other })],
        instances: [
          instanceRow(),
          instanceRow({ instanceId: 'bbbbbbbb-0000-4000-8000-000000000002', compositionId: other, name: 'Orphan' }),
        ],
        elements: [elementRow(EL1), elementRow(EL2, { instanceId: 'bbbbbbbb-0000-4000-8000-000000000002' })],
        participants: [{ participantId: PPNT }],
        supportedElements: [],
      },
      'refuse',
    );
    expect(plan.definitions.map((item) => item.mapped.ok)).toEqual([true, false]);
    expect(plan.instances.map((item) => [item.label, item.mapped.ok ? 'ok' : item.mapped.reason])).toEqual([
      ['Tiny-1 1.0.0', 'ok'],
      ['Orphan 1.0.0', `its composition definition ${other} is not imported`],
    ]);
    const first = plan.instances[0]?.mapped;
    expect(first?.ok === true ? Object.keys(first.value.elements) : []).toEqual([EL1]);
    expect(plan.participants).toHaveLength(1);
  });

  it('compares stored data whatever the order of keys', () => {
    expect(sameData({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(true);
    expect(sameData({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameData({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });
});
