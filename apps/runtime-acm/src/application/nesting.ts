import type { CompositionDefinition, NestingNode } from '@acm/domain';
import { isNestedCompositionTemplate, nestedSettingsOf } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import type { TemplateReader } from '../engine/template-reader';

/** How nesting sees a definition's template: its nested elements and its element names. */
export function nestingNodeOf(
  identity: Pick<CompositionDefinition, 'compositionId' | 'name' | 'version'> & { readonly primed: boolean },
  info: CompositionTemplateInfo,
): NestingNode {
  return {
    compositionId: identity.compositionId,
    name: identity.name,
    version: identity.version,
    primed: identity.primed,
    nested: info.elements
      .filter(isNestedCompositionTemplate)
      .map((element) => ({ element: element.name, properties: element.properties })),
    elements: info.elements.map((element) => element.name),
  };
}

/**
 * Every stored definition a definition nests, directly or deeper, as nesting sees it (the pure rules take a
 * synchronous lookup). `find` reads one definition; a definition that names no nested element costs no read.
 */
export async function loadNestedDefinitions(
  root: NestingNode,
  find: (compositionId: string) => Promise<CompositionDefinition | null>,
  templates: TemplateReader,
): Promise<Map<string, NestingNode>> {
  const loaded = new Map<string, NestingNode>();
  const queue = [root];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const nested of node.nested) {
      const { settings } = nestedSettingsOf(nested.properties);
      if (settings === null || loaded.has(settings.compositionId) || settings.compositionId === root.compositionId) {
        continue;
      }
      const definition = await find(settings.compositionId);
      if (definition === null) {
        continue;
      }
      const child = nestingNodeOf(
        { ...definition, primed: definition.state === 'PRIMED' },
        templates.readDefinition(definition),
      );
      loaded.set(child.compositionId, child);
      queue.push(child);
    }
  }
  return loaded;
}
