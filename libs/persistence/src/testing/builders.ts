/**
 * Builders of the domain's records for store tests: fresh random ids and names, so tests that share a store never
 * meet each other's rows, and every field set, so a test names only what it is about.
 */
import { randomUUID } from 'node:crypto';

import { freshControl, operationFromRecord } from '@acm/domain';
import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  Operation,
  OperationRecord,
  Participant,
} from '@acm/domain';

/** Lowercase hex only, so text order is the same under every collation. */
export const token = (): string => randomUUID().replace(/-/g, '');

export function definitionOf(overrides: Partial<CompositionDefinition> = {}): CompositionDefinition {
  return {
    compositionId: randomUUID(),
    name: `d${token()}`,
    version: '1.0.0',
    serviceTemplate: { tosca_definitions_version: 'tosca_simple_yaml_1_3', name: 'contract' },
    state: 'COMMISSIONED',
    stateChangeResult: 'NO_ERROR',
    lastMsg: 1_764_000_000_000,
    elementStateMap: {},
    revisionId: randomUUID(),
    ...overrides,
  };
}

export function elementOf(participantId: string | null, overrides: Partial<InstanceElement> = {}): InstanceElement {
  return {
    id: randomUUID(),
    definition: { name: 'onap.policy.clamp.ac.element.Sim_Element', version: '1.2.3' },
    participantId,
    deployState: 'UNDEPLOYED',
    lockState: 'NONE',
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties: { timeout: 1000, nested: { list: [1, 2] } },
    outProperties: {},
    ...overrides,
  };
}

export function instanceOf(
  compositionId: string,
  elements: readonly InstanceElement[],
  overrides: Partial<AutomationComposition> = {},
): AutomationComposition {
  return {
    instanceId: randomUUID(),
    compositionId,
    compositionTargetId: null,
    name: `i${token()}`,
    version: '1.0.0',
    description: null,
    derivedFrom: null,
    metadata: null,
    precheck: null,
    deployState: 'UNDEPLOYED',
    lockState: 'NONE',
    subState: 'NONE',
    stateChangeResult: 'NO_ERROR',
    phase: null,
    lastMsg: 1_764_000_000_000,
    revisionId: randomUUID(),
    elements: Object.fromEntries(elements.map((element) => [element.id, element])),
    ...overrides,
  };
}

/** Far in the future, so operations of other tests are never overdue for the claim tests. */
export const NOT_DUE = 4_000_000_000_000;

export function operationOf(targetId: string, overrides: Partial<OperationRecord> = {}): Operation {
  return operationFromRecord({
    operationId: randomUUID(),
    targetKind: 'INSTANCE',
    targetId,
    order: 'DEPLOY',
    state: 'RUNNING',
    timedOut: false,
    phase: 0,
    startedAt: 1_764_000_000_000,
    deadlineAt: NOT_DUE,
    finishedAt: null,
    control: freshControl(1_764_000_000_000),
    ...overrides,
  });
}

export function participantOf(overrides: Partial<Participant> = {}): Participant {
  const replicaId = randomUUID();
  const typeId = randomUUID();
  return {
    participantId: randomUUID(),
    participantSupportedElementTypes: {
      [typeId]: { id: typeId, typeName: 'org.onap.policy.clamp.acm.SimElement', typeVersion: '1.0.0' },
    },
    replicas: { [replicaId]: { replicaId, participantState: 'ON_LINE', lastMsg: 1_764_000_000_000 } },
    ...overrides,
  };
}
