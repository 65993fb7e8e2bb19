import { createHash } from 'node:crypto';
import type { AutomationComposition, CompositionDefinition, InstanceOrder, JsonObject } from '@acm/domain';
import { DomainError } from '@acm/domain';
import type { ServiceTemplate } from '@acm/tosca';
import { sensitivePropertiesOf } from '@acm/tosca';

/** Hex characters of each part's SHA-256 kept in a planId: 64 bits, enough to tell a change, short enough to send. */
const PART_HEX = 16;
const PARTS = ['instance', 'definition', 'order'] as const;
type PlanPart = (typeof PARTS)[number];

/** A planId is the three parts' digests one after the other. */
export const PLAN_ID_PATTERN = new RegExp(`^[0-9a-f]{${PART_HEX * PARTS.length}}$`, 'u');

/** What each part says when it no longer matches, for the 409. */
const CHANGED: Readonly<Record<PlanPart, string>> = {
  instance: 'the instance changed (its states, elements, properties or revision)',
  definition: 'its composition definition changed (state, revision or service template)',
  order: 'the order or its body differs from the planned one',
};

/** An update, migration or precheck body after its shape was checked (InstanceRequest), as a plan hashes it. */
export interface PlannedBody {
  readonly compositionId: string;
  readonly compositionTargetId?: string;
  readonly name: string;
  readonly version: string;
  readonly description: string | null;
  readonly derivedFrom: string | null;
  readonly metadata: JsonObject | null;
  readonly elements: ReadonlyArray<{
    readonly id: string;
    readonly definition: { readonly name: string; readonly version: string };
    readonly description: string | null;
    readonly properties: JsonObject;
    /** A group's count (beyond ONAP: TOSCA 2.0 `count`), given on the group's element. */
    readonly count?: number;
  }>;
}

export interface PlanDigestInput {
  /** The instance as stored now. */
  readonly instance: AutomationComposition;
  /** The definitions the order involves: the instance's, and a migration's target. */
  readonly definitions: readonly CompositionDefinition[];
  readonly order: InstanceOrder;
  /** The body of an update, migration or precheck; null for an order that takes none. */
  readonly body: PlannedBody | null;
}

/** The sensitive property names of a node template in any of `definitions` (flagged on its type or a data type). */
export function sensitiveNamesIn(
  definitions: readonly CompositionDefinition[],
  nodeTemplateName: string,
): ReadonlySet<string> {
  return new Set(
    definitions.flatMap((definition) => {
      const names = sensitivePropertiesOf(definition.serviceTemplate as unknown as ServiceTemplate, nodeTemplateName);
      return [...names.topLevel, ...names.nested];
    }),
  );
}

/** A copy of `value` where every key named in `names`, at any depth, holds the same placeholder. */
function withoutSecrets(value: unknown, names: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => withoutSecrets(item, names));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        names.has(key) ? 'sensitive' : withoutSecrets(item, names),
      ]),
    );
  }
  return value;
}

/** JSON with every object's keys sorted, so equal values always hash alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, PART_HEX);
}

/**
 * What an order acts on in an instance: its states, revision and elements with their states and properties. What
 * participants report on their own (outProperties, operational and use states, messages, lastMsg) is left out, so a
 * status report does not make a plan stale. Sensitive values are left out as in the body: whoever changes one changes
 * the revision or the states too.
 */
function instancePart(
  instance: AutomationComposition,
  sensitiveNames: (nodeTemplateName: string) => ReadonlySet<string>,
): unknown {
  return {
    instanceId: instance.instanceId,
    compositionId: instance.compositionId,
    compositionTargetId: instance.compositionTargetId,
    name: instance.name,
    version: instance.version,
    description: instance.description,
    derivedFrom: instance.derivedFrom,
    metadata: instance.metadata,
    deployState: instance.deployState,
    lockState: instance.lockState,
    subState: instance.subState,
    stateChangeResult: instance.stateChangeResult,
    phase: instance.phase,
    revisionId: instance.revisionId,
    elements: Object.values(instance.elements)
      .map((element) => ({
        id: element.id,
        definition: element.definition,
        participantId: element.participantId,
        deployState: element.deployState,
        lockState: element.lockState,
        subState: element.subState,
        migrationState: element.migrationState,
        stage: element.stage,
        description: element.description,
        properties: withoutSecrets(element.properties, sensitiveNames(element.definition.name)),
      }))
      .sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0)),
  };
}

function definitionPart(definitions: readonly CompositionDefinition[]): unknown {
  return definitions.map((definition) => ({
    compositionId: definition.compositionId,
    state: definition.state,
    revisionId: definition.revisionId,
    serviceTemplate: definition.serviceTemplate,
    participants: Object.fromEntries(
      Object.entries(definition.elementStateMap).map(([name, state]) => [name, state.participantId]),
    ),
  }));
}

/**
 * The body as an order reads it: element order and the instanceId and precheck fields (the order says them) aside.
 * Sensitive values are left out, so that nothing derived from a secret leaves in a planId: a body that differs from
 * the planned one only in a secret is not refused.
 */
function orderPart(
  order: InstanceOrder,
  body: PlannedBody | null,
  sensitiveNames: (nodeTemplateName: string) => ReadonlySet<string>,
): unknown {
  if (body === null) {
    return { order };
  }
  return {
    order,
    body: {
      compositionId: body.compositionId,
      compositionTargetId: body.compositionTargetId,
      name: body.name,
      version: body.version,
      description: body.description,
      derivedFrom: body.derivedFrom,
      metadata: body.metadata,
      elements: [...body.elements]
        .sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0))
        .map((element) => ({
          ...element,
          properties: withoutSecrets(element.properties, sensitiveNames(element.definition.name)),
        })),
    },
  };
}

/**
 * A plan's id: SHA-256 digests (hex, 16 characters each) of the instance as stored, of the definitions involved and of
 * the order with its body. The plan answers it and an order sent with it recomputes it (`assertPlanCurrent`): one
 * computation for both, so a plan cannot be taken for current when anything it was made from changed.
 */
export function planIdOf(input: PlanDigestInput): string {
  const sensitiveNames = (name: string): ReadonlySet<string> => sensitiveNamesIn(input.definitions, name);
  return (
    digestOf(instancePart(input.instance, sensitiveNames)) +
    digestOf(definitionPart(input.definitions)) +
    digestOf(orderPart(input.order, input.body, sensitiveNames))
  );
}

/** Refuses (409) an order whose planId no longer matches what it would act on, naming each part that changed. */
export function assertPlanCurrent(planId: string, input: PlanDigestInput): void {
  const current = planIdOf(input);
  if (current === planId) {
    return;
  }
  const changed = PARTS.filter(
    (_part, index) =>
      planId.slice(index * PART_HEX, (index + 1) * PART_HEX) !==
      current.slice(index * PART_HEX, (index + 1) * PART_HEX),
  );
  throw new DomainError(
    'CONCURRENT_MODIFICATION',
    `planId ${planId} is stale: ${changed.map((part) => CHANGED[part]).join('; ')} since the plan was made. ` +
      'Plan again (POST .../plan) and send the new planId.',
    { planId, changed, order: input.order, instanceId: input.instance.instanceId },
  );
}
