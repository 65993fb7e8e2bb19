import type { Mapping } from './guards';
import { isMapping } from './guards';
import type { PathSegment, ToscaProblem } from './problem';
import { problem } from './problem';
import { inheritedProperties, typeSectionsOf } from './property-schema';
import { checkValue } from './property-values';

/** The instance's properties of one element, located in the request so problems carry the path a user wrote. */
export interface ElementPropertiesRequest {
  /** Node template key of the element (its `definition.name`). */
  nodeTemplateName: string;
  /** The properties the instance gives. */
  properties: Record<string, unknown>;
  /** Where those properties are in the request, e.g. `['elements', '<id>', 'properties']`. */
  path: readonly PathSegment[];
}

/** The properties to store for one element, and every problem found. */
export interface ResolvedElementProperties {
  /**
   * The instance's values, checked, plus the node type default of every property that neither the instance nor
   * the node template sets. Node template values are not copied: participants receive them with the composition.
   */
  properties: Record<string, unknown>;
  problems: ToscaProblem[];
}

/**
 * Checks an element's properties against its node type's property definitions, inherited through `derived_from`,
 * after applying defaults in TOSCA's order: node type default, then node template value, then the instance's value.
 * Every problem is listed: a wrong type, a broken constraint, a required property left unset, a property the node
 * type does not define. A problem in a node template value is reported at the node template's path, because the
 * definition, not the instance, has to change. Pure: the template is the validated, stored document.
 */
export function resolveElementProperties(
  template: unknown,
  request: ElementPropertiesRequest,
): ResolvedElementProperties {
  if (!isMapping(template)) {
    return { properties: request.properties, problems: [] };
  }
  const { nodeTypes, dataTypes } = typeSectionsOf(template);
  const topology = isMapping(template['topology_template']) ? template['topology_template'] : {};
  const nodeTemplates = isMapping(topology['node_templates']) ? topology['node_templates'] : {};
  const nodeTemplate = nodeTemplates[request.nodeTemplateName];
  if (!isMapping(nodeTemplate) || typeof nodeTemplate['type'] !== 'string') {
    return { properties: request.properties, problems: [] };
  }
  const nodeTypeName = nodeTemplate['type'].split(':')[0] ?? nodeTemplate['type'];
  const templateValues: Mapping = isMapping(nodeTemplate['properties']) ? nodeTemplate['properties'] : {};
  const templatePath = ['topology_template', 'node_templates', request.nodeTemplateName, 'properties'];
  const definitions = inheritedProperties(nodeTypes, nodeTypeName);
  const declared = new Set(definitions.map((definition) => definition.name));
  const problems: ToscaProblem[] = [];
  const stored: Record<string, unknown> = {};
  for (const definition of definitions) {
    const instanceValue = request.properties[definition.name];
    const templateValue = templateValues[definition.name];
    const fromInstance = instanceValue !== undefined && instanceValue !== null;
    const fromTemplate = !fromInstance && templateValue !== undefined && templateValue !== null;
    const raw = fromInstance ? instanceValue : fromTemplate ? templateValue : definition.defaultValue;
    if (raw === undefined || raw === null) {
      if (definition.required) {
        const message = `required by node type ${nodeTypeName}, set neither by the instance nor by the node template, and no default`;
        problems.push(problem([...request.path, definition.name], 'property-required', message));
      }
      continue;
    }
    const path = fromTemplate ? [...templatePath, definition.name] : [...request.path, definition.name];
    const checked = checkValue(raw, definition, path, dataTypes);
    problems.push(...checked.problems);
    if (!fromTemplate) {
      stored[definition.name] = checked.value;
    }
  }
  for (const [name, value] of Object.entries(request.properties)) {
    if (!declared.has(name)) {
      stored[name] = value;
      const message = `unknown property: node type ${nodeTypeName} and its parents do not define it`;
      problems.push(problem([...request.path, name], 'property-unknown', message));
    }
  }
  return { properties: stored, problems };
}
