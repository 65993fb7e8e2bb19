import { isDeepStrictEqual } from 'node:util';
import type { ObservedResource } from './resource-client';

/**
 * The provider lifecycle rules as a pure function of what the service reports, the element's flags and
 * its key properties. Every refusal carries a multi-line diagnostic that names the decision, the flag
 * that controls it, the resource's ids and states, and the ways out.
 */

/** Element property names of the flags, with the defaults of the TOSCA type `acm.ResourceProviderElement`. */
export const ADOPT_EXISTING_ON_CREATE = 'adoptExistingOnCreate';
export const SUSPEND_ON_DESTROY = 'suspendOnDestroy';
export const PROVIDER_FLAG_DEFAULTS = { [ADOPT_EXISTING_ON_CREATE]: false, [SUSPEND_ON_DESTROY]: true } as const;

/** @publicApi Why a deploy was refused. */
export type DeployRefusal =
  | 'suspended-adoption-not-allowed'
  | 'suspended-key-properties-differ'
  | 'running-adoption-not-allowed'
  | 'resource-busy'
  | 'resource-failed';

/** @publicApi What a deploy does with the resource it finds. */
export type DeployDecision =
  | { readonly action: 'create' }
  | { readonly action: 'resume-and-adopt' }
  | { readonly action: 'adopt' }
  | { readonly action: 'refuse'; readonly refusal: DeployRefusal; readonly diagnostic: string };

/** @publicApi What an undeploy does with the resource. */
export type UndeployDecision = { readonly action: 'suspend' } | { readonly action: 'forget' };

/** @publicApi Input of {@link decideDeploy}. */
export interface DeployInput {
  readonly resourceName: string;
  readonly elementId: string;
  readonly observed: ObservedResource;
  readonly adoptExistingOnCreate: boolean;
  /** The element's values of the key properties; compared with `observed.keyProperties`. */
  readonly keyProperties: Readonly<Record<string, unknown>>;
}

function shown(value: unknown): string {
  return value === undefined || value === null || value === '' ? 'none' : JSON.stringify(value);
}

/** The lines every diagnostic shares: the ids and states of the resource. */
export function resourceFacts(resourceName: string, observed: ObservedResource): string[] {
  return [
    `  resource_name: ${resourceName}`,
    `  instance_uid: ${observed.instanceUid ?? 'none'}`,
    `  status: ${observed.state}`,
    `  status_raw: ${observed.statusRaw ?? 'none'}`,
    `  operation_pending: ${observed.operationPending ?? 'none'}`,
    `  operation_in_progress: ${observed.operationInProgress ?? 'none'}`,
  ];
}

/** The key properties whose values differ, as `name: existing X, wanted Y`. */
export function keyPropertyDifferences(
  wanted: Readonly<Record<string, unknown>>,
  existing: Readonly<Record<string, unknown>>,
): string[] {
  return Object.keys(wanted)
    .filter((name) => !isDeepStrictEqual(wanted[name] ?? null, existing[name] ?? null))
    .sort()
    .map((name) => `${name}: existing ${shown(existing[name])}, wanted ${shown(wanted[name])}`);
}

function refuse(input: DeployInput, refusal: DeployRefusal, headline: string, extra: string[], ways: string[]) {
  const diagnostic = [
    `Deploy of element ${input.elementId} refused: ${headline}`,
    `  decision: refuse (${refusal})`,
    `  ${ADOPT_EXISTING_ON_CREATE}: ${input.adoptExistingOnCreate}`,
    ...resourceFacts(input.resourceName, input.observed),
    ...extra,
    'Ways out:',
    ...ways.map((way) => `  - ${way}`),
  ].join('\n');
  return { action: 'refuse', refusal, diagnostic } as const;
}

const CHANGE_NAME = 'change the element property resourceName to a name that is not in use, and deploy again';
const SET_ADOPT = `or set ${ADOPT_EXISTING_ON_CREATE}: true on the element to take the existing resource over, and deploy again`;

/** The decision matrix of a deploy (see docs: libs/participant-sdk/README.md, "Resource providers"). */
export function decideDeploy(input: DeployInput): DeployDecision {
  const { observed, adoptExistingOnCreate } = input;
  switch (observed.state) {
    case 'missing':
    case 'deleted':
      return { action: 'create' };
    case 'suspended': {
      if (!adoptExistingOnCreate) {
        return refuse(
          input,
          'suspended-adoption-not-allowed',
          `a suspended resource named ${input.resourceName} already exists and ${ADOPT_EXISTING_ON_CREATE} is false`,
          [],
          [CHANGE_NAME, SET_ADOPT],
        );
      }
      const differences = keyPropertyDifferences(input.keyProperties, observed.keyProperties ?? {});
      if (differences.length > 0) {
        return refuse(
          input,
          'suspended-key-properties-differ',
          `the suspended resource named ${input.resourceName} has other key properties, so it is not this element's`,
          ['  key properties that differ:', ...differences.map((line) => `    ${line}`)],
          [CHANGE_NAME, 'or give the element the key properties of the existing resource, and deploy again'],
        );
      }
      return { action: 'resume-and-adopt' };
    }
    case 'running':
      if (adoptExistingOnCreate) {
        return { action: 'adopt' };
      }
      return refuse(
        input,
        'running-adoption-not-allowed',
        `a running resource named ${input.resourceName} already exists and ${ADOPT_EXISTING_ON_CREATE} is false`,
        [],
        [CHANGE_NAME, SET_ADOPT],
      );
    case 'creating':
    case 'pending':
      return refuse(
        input,
        'resource-busy',
        `the resource named ${input.resourceName} is ${observed.state}: the service is still working on it`,
        [],
        ['wait until the service finishes the operation in progress, and deploy again', CHANGE_NAME],
      );
    case 'failed':
      return refuse(
        input,
        'resource-failed',
        `the resource named ${input.resourceName} is failed at the service`,
        [],
        ['repair or delete the resource at the service, and deploy again', CHANGE_NAME],
      );
  }
}

/** An undeploy suspends the resource when `suspendOnDestroy` is true; otherwise it forgets it, calling nothing. */
export function decideUndeploy(suspendOnDestroy: boolean): UndeployDecision {
  return suspendOnDestroy ? { action: 'suspend' } : { action: 'forget' };
}
