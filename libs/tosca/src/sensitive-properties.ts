import type { ServiceTemplate, ToscaEntityType, ToscaPropertyDefinition } from './service-template';

/**
 * The property names of one element that hold secrets, as ONAP's EncryptionUtils finds them:
 * `topLevel` are properties of the element's node type flagged `metadata.sensitive: "true"`; `nested` are
 * properties of a data type the node type uses (as a property's `type` or `entry_schema.type`) flagged the
 * same way, which live one level down, inside a map or a list of maps of the element's properties.
 */
export interface SensitiveProperties {
  readonly topLevel: ReadonlySet<string>;
  readonly nested: ReadonlySet<string>;
}

export const NO_SENSITIVE_PROPERTIES: SensitiveProperties = { topLevel: new Set(), nested: new Set() };

/** ONAP compares the metadata value with the text "true"; YAML's boolean true means the same to a user. */
export function isSensitive(property: ToscaPropertyDefinition | undefined): boolean {
  const flag = property?.metadata?.['sensitive'];
  return flag === true || flag === 'true';
}

/** A type and the types it derives from, nearest first; a cycle or an unknown parent ends the chain. */
function typeChain(types: Record<string, ToscaEntityType> | undefined, name: string): ToscaEntityType[] {
  const chain: ToscaEntityType[] = [];
  const seen = new Set<string>();
  let current: string | undefined = name;
  while (current !== undefined && !seen.has(current)) {
    seen.add(current);
    const type: ToscaEntityType | undefined = types?.[current];
    if (type === undefined) {
      break;
    }
    chain.push(type);
    current = type.derived_from;
  }
  return chain;
}

function propertiesOf(chain: readonly ToscaEntityType[]): Array<[string, ToscaPropertyDefinition]> {
  return chain.flatMap((type) => Object.entries(type.properties ?? {}));
}

/**
 * The sensitive properties of the element node template `elementName`. Unlike ONAP, which reads only the
 * node type's own properties, the node type's ancestors count too, so a flag set on a base type holds for
 * every type derived from it.
 */
export function sensitivePropertiesOf(template: ServiceTemplate, elementName: string): SensitiveProperties {
  const nodeTemplate = template.topology_template?.node_templates?.[elementName];
  if (nodeTemplate === undefined) {
    return NO_SENSITIVE_PROPERTIES;
  }
  const nodeProperties = propertiesOf(typeChain(template.node_types, nodeTemplate.type));
  const topLevel = new Set(nodeProperties.filter(([, property]) => isSensitive(property)).map(([name]) => name));
  const nested = new Set<string>();
  for (const [, property] of nodeProperties) {
    for (const typeName of [property.type, property.entry_schema?.type]) {
      if (typeName === undefined || template.data_types?.[typeName] === undefined) {
        continue;
      }
      for (const [name, dataProperty] of propertiesOf(typeChain(template.data_types, typeName))) {
        if (isSensitive(dataProperty)) {
          nested.add(name);
        }
      }
    }
  }
  return { topLevel, nested };
}
