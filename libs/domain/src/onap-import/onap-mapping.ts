import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  JsonObject,
  NodeTemplateState,
  Participant,
} from '../model';
import type { AcTypeState, DeployState, LockState, StateChangeResult, SubState } from '../states';
import {
  AC_TYPE_STATES,
  DEPLOY_STATES,
  LOCK_STATES,
  MIGRATION_STATES,
  STATE_CHANGE_RESULTS,
  SUB_STATES,
} from '../states';
import type {
  OnapDefinitionRow,
  OnapElementRow,
  OnapInstanceRow,
  OnapNodeTemplateStateRow,
  OnapParticipantRow,
  OnapSupportedElementRow,
} from './onap-rows';

/**
 * What to do with a state ONAP was still driving when its database was read (DEPLOYING with NO_ERROR, PRIMING, a
 * sub state): the runtime has no record of the messages ONAP sent, so it cannot resume that transition as ONAP
 * would. `refuse` leaves such rows out (the default); `as-failed` imports them with stateChangeResult FAILED, so the
 * operator orders the next step as after any failure; `as-target` imports them as if the transition had completed.
 */
export const TRANSITIONAL_POLICIES = ['refuse', 'as-failed', 'as-target'] as const;
export type TransitionalPolicy = (typeof TRANSITIONAL_POLICIES)[number];

export type Mapped<T> =
  | { readonly ok: true; readonly value: T; readonly notes: readonly string[] }
  | { readonly ok: false; readonly reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A reason a row cannot be imported, carried by a throw inside one row's mapping only. */
class RowProblem extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

function problem(reason: string): never {
  throw new RowProblem(reason);
}

function mapped<T>(map: () => { value: T; notes: string[] }): Mapped<T> {
  try {
    const { value, notes } = map();
    return { ok: true, value, notes };
  } catch (error) {
    if (error instanceof RowProblem) {
      return { ok: false, reason: error.reason };
    }
    throw error;
  }
}

function uuid(value: unknown, column: string): string {
  if (typeof value !== 'string' || !UUID.test(value.toLowerCase())) {
    problem(`${column} ${JSON.stringify(value)} is not a UUID`);
  }
  return value.toLowerCase();
}

function optionalUuid(value: unknown, column: string): string | null {
  return value === null || value === undefined || value === '' ? null : uuid(value, column);
}

function text(value: unknown, column: string): string {
  if (typeof value !== 'string') {
    problem(`${column} is ${value === null ? 'NULL' : 'not text'}`);
  }
  return value;
}

function optionalText(value: unknown, column: string): string | null {
  return value === null || value === undefined ? null : text(value, column);
}

function integer(value: unknown, column: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    problem(`${column} ${JSON.stringify(value)} is not an integer`);
  }
  return value;
}

function optionalInteger(value: unknown, column: string): number | null {
  return value === null || value === undefined ? null : integer(value, column);
}

function epochMillis(value: unknown, column: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    problem(`${column} is not a time`);
  }
  return Math.floor(value);
}

/** ONAP stores its enums as Java ordinals; the runtime's vocabularies list them in ONAP's declaration order. */
function ordinal<const T extends readonly string[]>(vocabulary: T, value: unknown, column: string): T[number] {
  const index = integer(value, column);
  const name = vocabulary[index];
  if (name === undefined) {
    problem(`${column} ${index} is not one of ONAP's ${vocabulary.length} values (0 to ${vocabulary.length - 1})`);
  }
  return name;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonObject(value: unknown, column: string): JsonObject {
  const source = text(value, column);
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch {
    problem(`${column} is not JSON`);
  }
  if (!isObject(parsed)) {
    problem(`${column} is not a JSON object`);
  }
  return parsed;
}

/** The sections of a TOSCA service template that ONAP's Doc model keys by `name:version`. */
const KEYED_SECTIONS = ['data_types', 'capability_types', 'node_types', 'relationship_types', 'policy_types'] as const;

function withoutDocFields(entry: unknown): unknown {
  if (!isObject(entry)) {
    return entry;
  }
  const { toscaEntity: _toscaEntity, ...rest } = entry;
  return rest;
}

/** A map keyed `name:version` (ONAP's Doc form) keyed by name, as the service template was written. */
function byName(section: unknown, where: string): JsonObject {
  if (!isObject(section)) {
    problem(`service template ${where} is not a map`);
  }
  const result: JsonObject = {};
  for (const [key, entry] of Object.entries(section)) {
    const named = isObject(entry) && typeof entry['name'] === 'string' ? entry['name'] : undefined;
    const colon = key.lastIndexOf(':');
    const name = named ?? (colon > 0 ? key.slice(0, colon) : key);
    if (Object.hasOwn(result, name)) {
      problem(`service template ${where} holds two versions of ${name}; the runtime keys them by name alone`);
    }
    result[name] = withoutDocFields(entry);
  }
  return result;
}

/**
 * ONAP's `servicetemplate` column (the JSON of its `DocToscaServiceTemplate`) as the TOSCA service template the
 * runtime stores and answers: types and node templates keyed by name, policies a list, ONAP's internal
 * `toscaEntity` copies left out, and `metadata.compositionId` set as commissioning sets it.
 */
export function serviceTemplateFromOnap(document: JsonObject, compositionId: string): JsonObject {
  const { toscaEntity: _toscaEntity, ...template } = document;
  for (const section of KEYED_SECTIONS) {
    if (template[section] !== undefined) {
      template[section] = byName(template[section], section);
    }
  }
  const topology = template['topology_template'];
  if (topology !== undefined) {
    if (!isObject(topology)) {
      problem('service template topology_template is not a map');
    }
    const converted: JsonObject = { ...topology };
    if (topology['node_templates'] !== undefined) {
      converted['node_templates'] = byName(topology['node_templates'], 'topology_template.node_templates');
    }
    const policies = topology['policies'];
    if (isObject(policies)) {
      converted['policies'] = Object.entries(byName(policies, 'topology_template.policies')).map(([name, policy]) => ({
        [name]: policy,
      }));
    }
    template['topology_template'] = converted;
  }
  const metadata = template['metadata'];
  return { ...template, metadata: { ...(isObject(metadata) ? metadata : {}), compositionId } };
}

function transitionalRefusal(what: string): never {
  problem(`${what} is a transition ONAP was still running; use --transitional=as-failed or --transitional=as-target`);
}

const PRIMING_TARGET: Partial<Record<AcTypeState, AcTypeState>> = { PRIMING: 'PRIMED', DEPRIMING: 'COMMISSIONED' };

function nodeTemplateState(row: OnapNodeTemplateStateRow): NodeTemplateState {
  return {
    nodeTemplateStateId: uuid(row.nodeTemplateStateId, 'nodetemplatestateid'),
    participantId: optionalUuid(row.participantId, 'nodetemplatestate.participantid'),
    nodeTemplateId: {
      name: text(row.nodeTemplateName, 'nodetemplate_name'),
      version: text(row.nodeTemplateVersion, 'nodetemplate_version'),
    },
    state: ordinal(AC_TYPE_STATES, row.state, 'nodetemplatestate.state'),
    message: optionalText(row.message, 'nodetemplatestate.message'),
    outProperties: jsonObject(row.outProperties, 'nodetemplatestate.outproperties'),
  };
}

/** One ONAP composition definition with its node template states (the rows whose compositionid is its id). */
export function definitionFromOnap(
  row: OnapDefinitionRow,
  states: readonly OnapNodeTemplateStateRow[],
  transitional: TransitionalPolicy,
): Mapped<CompositionDefinition> {
  return mapped(() => {
    const notes: string[] = [];
    const compositionId = uuid(row.compositionId, 'compositionid');
    let state = ordinal(AC_TYPE_STATES, row.state, 'state');
    let stateChangeResult: StateChangeResult = ordinal(
      STATE_CHANGE_RESULTS,
      row.stateChangeResult,
      'statechangeresult',
    );
    const elementStateMap: Record<string, NodeTemplateState> = {};
    for (const stateRow of states) {
      const element = nodeTemplateState(stateRow);
      elementStateMap[element.nodeTemplateId.name] = element;
    }
    const target = PRIMING_TARGET[state];
    if (target !== undefined && stateChangeResult === 'NO_ERROR') {
      if (transitional === 'refuse') {
        transitionalRefusal(state);
      }
      if (transitional === 'as-failed') {
        notes.push(`${state} in flight imported as ${state} FAILED`);
        stateChangeResult = 'FAILED';
      } else {
        notes.push(`${state} in flight imported as ${target}`);
        for (const [name, element] of Object.entries(elementStateMap)) {
          elementStateMap[name] = { ...element, state: PRIMING_TARGET[element.state] ?? element.state };
        }
        state = target;
      }
    }
    return {
      value: {
        compositionId,
        name: text(row.name, 'name'),
        version: text(row.version, 'version'),
        serviceTemplate: serviceTemplateFromOnap(jsonObject(row.serviceTemplate, 'servicetemplate'), compositionId),
        state,
        stateChangeResult,
        lastMsg: epochMillis(row.lastMsg, 'lastmsg'),
        elementStateMap,
        revisionId: uuid(row.revisionId, 'revisionid'),
      },
      notes,
    };
  });
}

/** Deploy states of a transition, and the state it ends in when it completes (none: it cannot be completed here). */
const DEPLOY_TARGET: Partial<Record<DeployState, DeployState | null>> = {
  DEPLOYING: 'DEPLOYED',
  UNDEPLOYING: 'UNDEPLOYED',
  UPDATING: 'DEPLOYED',
  DELETING: null,
  MIGRATING: null,
  MIGRATION_REVERTING: null,
  UPDATE_REVERTING: null,
};

const LOCK_TARGET: Partial<Record<LockState, LockState>> = { LOCKING: 'LOCKED', UNLOCKING: 'UNLOCKED' };

interface States {
  readonly deployState: DeployState;
  readonly lockState: LockState;
  readonly subState: SubState;
}

function inTransition(states: States): string | null {
  if (DEPLOY_TARGET[states.deployState] !== undefined) {
    return states.deployState;
  }
  if (LOCK_TARGET[states.lockState] !== undefined) {
    return states.lockState;
  }
  return states.subState === 'NONE' ? null : states.subState;
}

/** The states a completed transition leaves (ONAP's completion: deployed is LOCKED, undeployed NONE). */
function completed(states: States): States {
  const deployState = DEPLOY_TARGET[states.deployState] ?? states.deployState;
  const lockTarget = LOCK_TARGET[states.lockState] ?? states.lockState;
  const lockState =
    deployState === 'UNDEPLOYED' ? 'NONE' : deployState === 'DEPLOYED' && lockTarget === 'NONE' ? 'LOCKED' : lockTarget;
  return { deployState, lockState, subState: 'NONE' };
}

function element(row: OnapElementRow): InstanceElement {
  const elementId = uuid(row.elementId, 'elementid');
  const where = (column: string): string => `element ${elementId} ${column}`;
  return {
    id: elementId,
    definition: {
      name: text(row.definitionName, where('definition_name')),
      version: text(row.definitionVersion, where('definition_version')),
    },
    participantId: optionalUuid(row.participantId, where('participantid')),
    deployState: ordinal(DEPLOY_STATES, row.deployState, where('deploystate')),
    lockState: ordinal(LOCK_STATES, row.lockState, where('lockstate')),
    subState: ordinal(SUB_STATES, row.subState, where('substate')),
    migrationState: ordinal(MIGRATION_STATES, row.migrationState ?? 0, where('migrationstate')),
    stage: optionalInteger(row.stage, where('stage')),
    operationalState: optionalText(row.operationalState, where('operationalstate')),
    useState: optionalText(row.useState, where('usestate')),
    description: optionalText(row.description, where('description')),
    message: optionalText(row.message, where('message')),
    properties: jsonObject(row.properties, where('properties')),
    outProperties: jsonObject(row.outProperties, where('outproperties')),
  };
}

/**
 * One ONAP instance with its element rows. Elements are kept in the order of their ids (ONAP's table has no order;
 * the runtime's position only orders answers). A row of the instance or of any of its elements that does not parse
 * refuses the whole instance: an instance is imported whole or not at all.
 */
export function instanceFromOnap(
  row: OnapInstanceRow,
  elementRows: readonly OnapElementRow[],
  transitional: TransitionalPolicy,
): Mapped<AutomationComposition> {
  return mapped(() => {
    const notes: string[] = [];
    let states: States = {
      deployState: ordinal(DEPLOY_STATES, row.deployState, 'deploystate'),
      lockState: ordinal(LOCK_STATES, row.lockState, 'lockstate'),
      subState: ordinal(SUB_STATES, row.subState, 'substate'),
    };
    let stateChangeResult: StateChangeResult = ordinal(
      STATE_CHANGE_RESULTS,
      row.stateChangeResult,
      'statechangeresult',
    );
    let elements = [...elementRows].map(element).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (elements.length === 0) {
      problem('it has no element rows');
    }
    const transition = inTransition(states);
    let phase = optionalInteger(row.phase, 'phase');
    if (transition !== null && stateChangeResult === 'NO_ERROR') {
      if (transitional === 'refuse') {
        transitionalRefusal(transition);
      }
      if (transitional === 'as-failed') {
        notes.push(`${transition} in flight imported as ${transition} FAILED`);
        stateChangeResult = 'FAILED';
      } else {
        if (DEPLOY_TARGET[states.deployState] === null) {
          problem(
            `${states.deployState} cannot be completed by an import (the participants' part of it is unknown); use --transitional=as-failed`,
          );
        }
        const target = completed(states);
        notes.push(`${transition} in flight imported as ${target.deployState}/${target.lockState}`);
        states = target;
        phase = null;
        elements = elements.map((item) => ({ ...item, ...completed(item) }));
      }
    }
    const compositionId = uuid(row.compositionId, 'compositionid');
    const compositionTargetId = optionalUuid(row.compositionTargetId, 'compositiontargetid');
    return {
      value: {
        instanceId: uuid(row.instanceId, 'instanceid'),
        compositionId,
        compositionTargetId,
        name: text(row.name, 'name'),
        version: text(row.version, 'version'),
        description: optionalText(row.description, 'description'),
        derivedFrom: null,
        metadata: null,
        precheck: null,
        ...states,
        stateChangeResult,
        phase,
        lastMsg: epochMillis(row.lastMsg, 'lastmsg'),
        revisionId: uuid(row.revisionId, 'revisionid'),
        elements: Object.fromEntries(elements.map((item) => [item.id, item])),
      },
      notes,
    };
  });
}

/**
 * A participant ONAP knew, with its supported element types. Its replicas are left out: they were ONAP's processes,
 * and a participant's replica that reaches this runtime registers (or reports) and is sent the SYNC of its
 * definitions and instances then, as on any restart.
 */
export function participantFromOnap(
  row: OnapParticipantRow,
  supported: readonly OnapSupportedElementRow[],
): Mapped<Participant> {
  return mapped(() => {
    const participantId = uuid(row.participantId, 'participantid');
    const types = supported.map((type) => ({
      id: uuid(type.id, 'participantsupportedacelements.id'),
      typeName: text(type.typeName, 'typename'),
      typeVersion: text(type.typeVersion, 'typeversion'),
    }));
    return {
      value: {
        participantId,
        participantSupportedElementTypes: Object.fromEntries(types.map((type) => [type.id, type])),
        replicas: {},
      },
      notes: [],
    };
  });
}
