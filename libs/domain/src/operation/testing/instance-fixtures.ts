import type { AutomationComposition, InstanceElement } from '../../model';
import type { InstanceOperation } from '../../ports/engine.port';
import type { Refusal } from '../../refusal';
import { isRefusal } from '../../refusal';
import { WAIT_CONDITION_TYPE } from '../../control/wait-condition';
import type { OperationEffect, SendPhaseEffect } from '../effects';
import type { InstanceAck, InstanceDecision, InstanceStep, InstanceStepContext } from '../instance-types';
import type { ElementTemplate } from '../topology';

/** Instances, templates and ACKs for the pure specs of the instance machine (no store, a fixed clock). */

export const T0 = 1_764_000_000_000;
export const P1 = 'p-1';
export const P2 = 'p-2';

export function template(name: string, startPhase: number, dependsOn: string[] = []): ElementTemplate {
  return { name, version: '1.0.0', startPhase, stage: { prepare: [0], migrate: [0] }, dependsOn };
}

/** A wait-condition template: `count` SUCCESS signals complete it; `timeout` in seconds, as Heat. */
export function waitTemplate(
  name: string,
  startPhase: number,
  properties: Record<string, unknown> = {},
): ElementTemplate {
  return { ...template(name, startPhase), types: [WAIT_CONDITION_TYPE], properties };
}

/** An element; `participantId` null for one the runtime runs itself (a wait condition). */
export function element(id: string, name: string, participantId: string | null = P1): InstanceElement {
  return {
    id,
    definition: { name, version: '1.0.0' },
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
    properties: {},
    outProperties: {},
  };
}

export function instanceOf(elements: InstanceElement[]): AutomationComposition {
  return {
    instanceId: 'i-1',
    compositionId: 'c-1',
    compositionTargetId: null,
    name: 'i',
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
    lastMsg: T0,
    revisionId: 'r-0',
    elements: Object.fromEntries(elements.map((item) => [item.id, item])),
  };
}

export function contextOf(
  templates: ElementTemplate[],
  maxParallelElements: number | null = null,
): InstanceStepContext {
  let next = 0;
  return {
    templates: { own: templates, other: null },
    defaultTimeoutMs: 10_000,
    maxParallelElements,
    newId: () => `id-${++next}`,
  };
}

export function sends(step: InstanceStep): SendPhaseEffect[] {
  return step.effects.filter((effect): effect is SendPhaseEffect => effect.kind === 'SEND_PHASE');
}

export function events(step: InstanceStep): string[] {
  return step.effects.flatMap((effect: OperationEffect) => (effect.kind === 'RECORD_EVENT' ? [effect.event] : []));
}

export function ack(
  participantId: string,
  elementIds: string[],
  result: 'NO_ERROR' | 'FAILED' = 'NO_ERROR',
): InstanceAck {
  return {
    participantId,
    replicaId: null,
    responseTo: null,
    stateChangeResult: result,
    message: result === 'FAILED' ? 'it broke' : null,
    stage: null,
    reports: elementIds.map((elementId) => ({
      elementId,
      deployState: result === 'FAILED' ? 'UNDEPLOYED' : 'DEPLOYED',
      lockState: result === 'FAILED' ? 'NONE' : 'LOCKED',
      result: null,
    })),
  };
}

/** The running operation after a step, as the store would hold it. */
export function runningAfter(step: InstanceStep): InstanceOperation | null {
  const last = step.operation;
  return last && last.state === 'RUNNING' ? last : null;
}

/** The step of a decision that must not be refused (a spec fails with the refusal's message if it is). */
export function stepOf(decision: InstanceDecision): InstanceStep {
  if (isRefusal(decision)) {
    throw new Error(`expected a step, got a refusal: ${decision.code} ${decision.message}`);
  }
  return decision;
}

/** The refusal of a decision that must be refused. */
export function refusalOf(decision: InstanceDecision): Refusal {
  if (!isRefusal(decision)) {
    throw new Error(`expected a refusal, got a step with ${decision.effects.length} effects`);
  }
  return decision;
}
