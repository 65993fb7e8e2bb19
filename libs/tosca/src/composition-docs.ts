import type { GroupDefinition } from './group-rules';
import { boundsText } from './group-rules';
import type { Mapping } from './guards';
import { isMapping } from './guards';
import type { ToscaProblem } from './problem';
import type { PropertySchema, ValueSchema } from './property-schema';
import { dataTypeShape, inheritedProperties, typeSectionsOf } from './property-schema';
import type { ElementDefinitionInfo } from './service-template';
import type { ValidationOptions } from './validate-service-template';
import { validateServiceTemplate } from './validate-service-template';

/** The Markdown page of a definition, or why the template cannot be documented (it is not commissionable). */
export type CompositionDocsResult = { ok: true; markdown: string } | { ok: false; problems: ToscaProblem[] };

/**
 * Writes the documentation of a composition definition as Markdown: the composition, then each element with its
 * type, participant type, start phase, stage, dependencies and a table of its properties (by name), then the data types those
 * properties use. Every text taken from the template is escaped, so a description cannot inject Markdown or HTML.
 */
export function renderCompositionDocs(template: unknown, options: ValidationOptions): CompositionDocsResult {
  const validated = validateServiceTemplate(template, options);
  if (!validated.ok || !isMapping(template)) {
    return { ok: false, problems: validated.ok ? [] : validated.problems };
  }
  const info = validated.definition;
  const { nodeTypes, dataTypes } = typeSectionsOf(template);
  const nodeTemplates = nodeTemplatesOf(template);
  const lines: string[] = [];
  const composition = info.compositionNodeTemplate;
  lines.push(`# ${text(composition.name)} ${text(composition.version)}`, '');
  pushDescription(lines, nodeTemplates[composition.name]?.['description'] ?? template['description']);
  lines.push('| | |', '| --- | --- |');
  lines.push(
    `| Service template | ${code(stringOr(template['name'], '(unnamed)'))} ${text(stringOr(template['version'], ''))} |`,
  );
  lines.push(`| TOSCA | ${code(stringOr(template['tosca_definitions_version'], ''))} |`);
  lines.push(`| Elements | ${info.listedElements.map((element) => code(element.name)).join(', ')} |`, '');
  lines.push('## Elements', '');
  const usedDataTypes = new Set<string>();
  for (const element of inListedOrder(info.elements, info.listedElements)) {
    const properties = byName(inheritedProperties(nodeTypes, element.type));
    pushElement(lines, element, nodeTemplates[element.name], properties);
    for (const property of properties) {
      collectDataTypes(property, dataTypes, usedDataTypes);
    }
  }
  if (usedDataTypes.size > 0) {
    lines.push('## Data types', '');
    for (const name of [...usedDataTypes].sort()) {
      const definition = dataTypes[name];
      lines.push(`### ${text(name)}`, '');
      pushDescription(lines, isMapping(definition) ? definition['description'] : undefined);
      const shape = dataTypeShape(dataTypes, name);
      if (shape?.primitive !== undefined) {
        lines.push(`A ${code(shape.primitive)}${constraintsSuffix(shape.constraints)}.`, '');
      } else {
        pushPropertyTable(lines, byName(shape?.properties ?? []));
      }
    }
  }
  return { ok: true, markdown: `${lines.join('\n').trimEnd()}\n` };
}

/*
 * The page must not depend on key order: PostgreSQL's jsonb, which stores the definitions, sorts object keys. Elements
 * follow the composition's list (an array keeps its order), properties their names.
 */
function inListedOrder(
  elements: readonly ElementDefinitionInfo[],
  listed: ReadonlyArray<{ name: string }>,
): ElementDefinitionInfo[] {
  const position = new Map(listed.map((element, index) => [element.name, index]));
  const rank = (element: ElementDefinitionInfo): number => position.get(element.name) ?? listed.length;
  return [...elements].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

function byName(properties: readonly PropertySchema[]): PropertySchema[] {
  return [...properties].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function nodeTemplatesOf(template: Mapping): Record<string, Mapping> {
  const topology = isMapping(template['topology_template']) ? template['topology_template'] : {};
  const nodeTemplates = isMapping(topology['node_templates']) ? topology['node_templates'] : {};
  return Object.fromEntries(
    Object.entries(nodeTemplates).filter((entry): entry is [string, Mapping] => isMapping(entry[1])),
  );
}

function pushElement(
  lines: string[],
  element: ElementDefinitionInfo,
  nodeTemplate: Mapping | undefined,
  properties: readonly PropertySchema[],
): void {
  lines.push(`### ${text(element.name)} ${text(element.version)}`, '');
  pushDescription(lines, nodeTemplate?.['description']);
  lines.push('| | |', '| --- | --- |');
  lines.push(`| Type | ${code(element.type)} ${text(element.typeVersion)} |`);
  lines.push(`| Participant type | ${code(`${element.type}:${element.typeVersion}`)} |`);
  lines.push(`| Start phase | ${element.startPhase} |`);
  lines.push(`| Stage | prepare ${element.stage.prepare.join(', ')}; migrate ${element.stage.migrate.join(', ')} |`);
  const dependsOn = element.dependsOn.map((name) => code(name)).join(', ');
  lines.push(`| Depends on | ${dependsOn === '' ? 'nothing' : dependsOn} |`);
  // Only where the type sets them: the pages of the other compositions stay as they were.
  if (element.replaceOn !== undefined) {
    lines.push(`| Replaced when changed | ${element.replaceOn.map((name) => code(name)).join(', ')} |`);
  }
  if (element.createBeforeDestroy === true) {
    lines.push('| Replace order | create before destroy |');
  }
  if (element.group !== undefined) {
    lines.push(`| Group | ${groupText(element.group)} |`);
  }
  lines.push('');
  pushPropertyTable(lines, properties);
}

function pushPropertyTable(lines: string[], properties: readonly PropertySchema[]): void {
  if (properties.length === 0) {
    lines.push('No properties.', '');
    return;
  }
  lines.push('| Property | Type | Required | Default | Constraints | Description | Sensitive |');
  lines.push('| --- | --- | --- | --- | --- | --- | --- |');
  for (const property of properties) {
    const cells = [
      code(property.name),
      typeText(property),
      property.required ? 'yes' : 'no',
      property.defaultValue === undefined ? '' : code(valueText(property.defaultValue)),
      constraintsText(constraintsOf(property)),
      text(property.description ?? ''),
      property.sensitive ? 'yes' : 'no',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('');
}

function typeText(schema: ValueSchema): string {
  const entry = schema.entrySchema === undefined ? '' : ` of ${typeText(schema.entrySchema)}`;
  return `${code(schema.type)}${entry}`;
}

/** Constraints of a property and of its entry schemas, the latter prefixed with where they apply. */
function constraintsOf(schema: ValueSchema): unknown[] {
  const entries = schema.entrySchema?.constraints.map((constraint) => ({ entries: constraint })) ?? [];
  return [...schema.constraints, ...entries];
}

function constraintsText(constraints: readonly unknown[]): string {
  return constraints
    .flatMap((constraint) =>
      isMapping(constraint)
        ? Object.entries(constraint).map(([operator, operand]) =>
            operator === 'entries' && isMapping(operand)
              ? `entries: ${constraintsText([operand])}`
              : code(`${operator} ${valueText(operand)}`),
          )
        : [],
    )
    .join(', ');
}

function constraintsSuffix(constraints: readonly unknown[]): string {
  return constraints.length === 0 ? '' : `, constrained by ${constraintsText(constraints)}`;
}

function collectDataTypes(schema: ValueSchema, dataTypes: Mapping, found: Set<string>): void {
  const visit = (candidate: ValueSchema | undefined): void => {
    if (candidate === undefined) {
      return;
    }
    if (isMapping(dataTypes[candidate.type]) && !found.has(candidate.type)) {
      found.add(candidate.type);
      for (const property of dataTypeShape(dataTypes, candidate.type)?.properties ?? []) {
        visit(property);
      }
    }
    visit(candidate.entrySchema);
    visit(candidate.keySchema);
  };
  visit(schema);
}

function pushDescription(lines: string[], description: unknown): void {
  if (typeof description === 'string' && description.trim() !== '') {
    lines.push(paragraph(description), '');
  }
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function valueText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/**
 * Text from the template as inert Markdown: HTML-significant characters become entities, and the punctuation of
 * links, emphasis, code and tables is backslash-escaped, so neither a tag nor a link nor a cell can come from a
 * description. Line breaks become spaces so a text stays in its table cell.
 */
export function text(value: string): string {
  return value
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1');
}

/** A text that starts a line: also kept from starting a heading, a list or a setext underline. */
function paragraph(value: string): string {
  return text(value)
    .replace(/^([#+=-])/, '\\$1')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

/** A code span: its content is literal in Markdown; only a pipe needs escaping inside a table. */
export function code(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
  const fence = flat.includes('`') ? '`` ' : '`';
  const close = flat.includes('`') ? ' ``' : '`';
  return flat === '' ? '' : `${fence}${flat}${close}`;
}

/** `count 3 (bounds 1..6); scaling change_in_capacity 1, cooldown 60 s`, as the page shows a group. */
function groupText(group: GroupDefinition): string {
  const count = `count ${group.count} (bounds ${boundsText(group.min, group.max)})`;
  const scaling = group.scaling;
  return scaling === undefined
    ? count
    : `${count}; scaling ${scaling.adjustmentType} ${scaling.adjustment}, cooldown ${scaling.cooldownSeconds} s`;
}
