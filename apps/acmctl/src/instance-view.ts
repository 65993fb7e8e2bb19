import type { TableView } from './output';
import { field, formatTable, list, text } from './output';

export const instanceRow = (instance: unknown): string[] => [
  text(field(instance, 'instanceId')),
  text(field(instance, 'compositionId')),
  text(field(instance, 'name')),
  text(field(instance, 'version')),
  // Beyond ONAP: the project of the instance's definition (empty from a runtime that does not say).
  text(field(instance, 'project')),
  text(field(instance, 'deployState')),
  text(field(instance, 'lockState')),
  text(field(instance, 'stateChangeResult')),
  // The runtime's own view of what the state accepts (empty from a runtime that does not say).
  list(field(instance, 'allowedOrders')).map(text).join(',') || '-',
];
export const INSTANCE_HEADERS = [
  'INSTANCE',
  'COMPOSITION',
  'NAME',
  'VERSION',
  'PROJECT',
  'DEPLOY',
  'LOCK',
  'RESULT',
  'ALLOWED ORDERS',
];

const nonEmptyText = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * The instances an instance is linked to by nesting: a PARENT row for a child (its `metadata.nestedIn`), a CHILD row
 * per nested-composition element that has a child instance (the `nestedComposition` state in its outProperties).
 */
export function nestingView(body: unknown): TableView {
  const rows: string[][] = [];
  const nestedIn = field(field(body, 'metadata'), 'nestedIn');
  const parentId = nonEmptyText(field(nestedIn, 'instanceId'));
  if (parentId !== undefined) {
    rows.push(['PARENT', parentId, text(field(nestedIn, 'elementId'))]);
  }
  for (const element of Object.values((field(body, 'elements') ?? {}) as Record<string, unknown>)) {
    const childId = nonEmptyText(field(field(field(element, 'outProperties'), 'nestedComposition'), 'childInstanceId'));
    if (childId !== undefined) {
      rows.push([
        'CHILD',
        childId,
        `${text(field(element, 'id'))} (${text(field(field(element, 'definition'), 'name'))})`,
      ]);
    }
  }
  return { headers: ['NESTING', 'INSTANCE', 'ELEMENT'], rows };
}

/**
 * The health columns of `acmctl instances get`, once a participant observed an element of the instance (the runtime's
 * `observedHealth`, beyond ONAP): the instance's worst health, and each element's health and drifted properties.
 * Absent (ONAP's runtime, or nothing observed yet): no column at all.
 */
export function healthColumns(body: unknown): {
  readonly instance: string;
  readonly element: (elementId: string) => [string, string];
} | null {
  const observed = field(body, 'observedHealth');
  if (observed === undefined || observed === null) {
    return null;
  }
  const elements = field(observed, 'elements');
  return {
    instance: text(field(observed, 'health')),
    element: (elementId) => {
      const element = field(elements, elementId);
      if (element === undefined) {
        return ['Unknown', '-'];
      }
      return [text(field(element, 'health')), list(field(element, 'drift')).map(text).join(',') || '-'];
    },
  };
}

/** `acmctl instances get`: the instance, its elements, then its parent and children when it is nested or nests. */
export function instanceTable(body: unknown): string {
  const health = healthColumns(body);
  const summary = {
    headers: [...INSTANCE_HEADERS, ...(health === null ? [] : ['HEALTH'])],
    rows: [[...instanceRow(body), ...(health === null ? [] : [health.instance])]],
  };
  const elements = Object.values((field(body, 'elements') ?? {}) as Record<string, unknown>);
  const elementView = {
    headers: ['ELEMENT', 'DEFINITION', 'DEPLOY', 'LOCK', ...(health === null ? [] : ['HEALTH', 'DRIFT']), 'MESSAGE'],
    rows: elements.map((element) => [
      text(field(element, 'id')),
      `${text(field(field(element, 'definition'), 'name'))}:${text(field(field(element, 'definition'), 'version'))}`,
      text(field(element, 'deployState')),
      text(field(element, 'lockState')),
      ...(health === null ? [] : health.element(text(field(element, 'id')))),
      text(field(element, 'message')),
    ]),
  };
  const nesting = nestingView(body);
  const sections = [summary, elementView, ...(nesting.rows.length === 0 ? [] : [nesting])];
  return sections.map(formatTable).join('\n\n');
}

/** The query of `acmctl graph`: the format, and `depth` when given (the runtime checks it and names it if bad). */
export function graphQuery(format: string, depth: string | undefined): string {
  const query = new URLSearchParams({ format });
  if (depth !== undefined) {
    query.set('depth', depth);
  }
  return query.toString();
}
