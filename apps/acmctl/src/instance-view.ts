import type { TableView } from './output';
import { field, formatTable, list, text } from './output';

export const instanceRow = (instance: unknown): string[] => [
  text(field(instance, 'instanceId')),
  text(field(instance, 'compositionId')),
  text(field(instance, 'name')),
  text(field(instance, 'version')),
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

/** `acmctl instances get`: the instance, its elements, then its parent and children when it is nested or nests. */
export function instanceTable(body: unknown): string {
  const summary = { headers: INSTANCE_HEADERS, rows: [instanceRow(body)] };
  const elements = Object.values((field(body, 'elements') ?? {}) as Record<string, unknown>);
  const elementView = {
    headers: ['ELEMENT', 'DEFINITION', 'DEPLOY', 'LOCK', 'MESSAGE'],
    rows: elements.map((element) => [
      text(field(element, 'id')),
      `${text(field(field(element, 'definition'), 'name'))}:${text(field(field(element, 'definition'), 'version'))}`,
      text(field(element, 'deployState')),
      text(field(element, 'lockState')),
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
