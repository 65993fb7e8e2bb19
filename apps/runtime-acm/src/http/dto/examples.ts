/**
 * Examples of the OpenAPI document. They work as they are against a runtime with its built-in simulator
 * participant (`npm start`): the browser test sends them through Swagger UI and the Postman collections use them.
 * Only the instance's compositionId must be the one the commissioning answered.
 */

const ELEMENT_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';

/** The smallest composition that commissions, primes and deploys on the simulator participant. */
export const SERVICE_TEMPLATE_EXAMPLE = {
  tosca_definitions_version: 'tosca_simple_yaml_1_3',
  name: 'acm.example.Minimal',
  version: '1.0.0',
  data_types: {
    'onap.datatypes.ToscaConceptIdentifier': {
      derived_from: 'tosca.datatypes.Root',
      properties: {
        name: { type: 'string', required: true },
        version: { type: 'string', required: true },
      },
    },
  },
  node_types: {
    'org.onap.policy.clamp.acm.AutomationCompositionElement': {
      version: '1.0.1',
      derived_from: 'tosca.nodetypes.Root',
      properties: {
        provider: { type: 'string', required: false },
        startPhase: { type: 'integer', required: false },
      },
    },
    'org.onap.policy.clamp.acm.AutomationComposition': {
      version: '1.0.1',
      derived_from: 'tosca.nodetypes.Root',
      properties: {
        elements: {
          type: 'list',
          required: true,
          entry_schema: { type: 'onap.datatypes.ToscaConceptIdentifier' },
        },
      },
    },
    [ELEMENT_TYPE]: {
      version: '1.0.0',
      derived_from: 'org.onap.policy.clamp.acm.AutomationCompositionElement',
      properties: {
        baseUrl: { type: 'string', required: false },
      },
    },
  },
  topology_template: {
    node_templates: {
      'acm.example.minimal.Element': {
        version: '1.0.0',
        type: ELEMENT_TYPE,
        type_version: '1.0.0',
        properties: { provider: 'acm-runtime', startPhase: 0 },
      },
      'acm.example.minimal.Composition': {
        version: '1.0.0',
        type: 'org.onap.policy.clamp.acm.AutomationComposition',
        type_version: '1.0.1',
        properties: { elements: [{ name: 'acm.example.minimal.Element', version: '1.0.0' }] },
      },
    },
  },
};

/** Stands for the compositionId a commissioning answers; replace it with yours. */
export const EXAMPLE_COMPOSITION_ID = '5e1f0000-0000-4000-8000-00000000c0de';
export const EXAMPLE_INSTANCE_ID = '5e1f0000-0000-4000-8000-0000000000a1';
export const EXAMPLE_ELEMENT_ID = '5e1f0000-0000-4000-8000-000000000e01';
export const EXAMPLE_PARTICIPANT_ID = '101c62b3-8918-41b9-a747-d21eb79c6c90';

export const COMMISSIONING_RESPONSE_EXAMPLE = {
  compositionId: EXAMPLE_COMPOSITION_ID,
  affectedAutomationCompositionDefinitions: [
    { name: 'acm.example.minimal.Element', version: '1.0.0' },
    { name: 'acm.example.minimal.Composition', version: '1.0.0' },
  ],
};

/** An instance of the example composition (ONAP AutomationComposition). */
export const INSTANCE_EXAMPLE = {
  name: 'MinimalInstance',
  version: '1.0.0',
  compositionId: EXAMPLE_COMPOSITION_ID,
  description: 'Instance of acm.example.Minimal',
  elements: {
    [EXAMPLE_ELEMENT_ID]: {
      id: EXAMPLE_ELEMENT_ID,
      definition: { name: 'acm.example.minimal.Element', version: '1.0.0' },
      description: 'The only element',
      properties: { baseUrl: 'http://sim.example:30800' },
    },
  },
};

export const INSTANTIATION_RESPONSE_EXAMPLE = {
  instanceId: EXAMPLE_INSTANCE_ID,
  affectedAutomationComposition: { name: 'MinimalInstance', version: '1.0.0' },
};
