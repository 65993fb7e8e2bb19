import { DomainError } from '../errors';
import type { NestingNode } from './nested-composition';
import {
  assertNestedPrimed,
  assertNesting,
  isNestedCompositionTemplate,
  NESTED_COMPOSITION_TYPE,
  nestedSettingsOf,
  nestingProblems,
  unprimedNested,
} from './nested-composition';

const SITE = '00000000-0000-4000-8000-000000000001';
const SLICE = '00000000-0000-4000-8000-000000000002';
const CORE = '00000000-0000-4000-8000-000000000003';
const UNKNOWN = '00000000-0000-4000-8000-0000000000ff';

function node(compositionId: string, name: string, nests: Record<string, Record<string, unknown>> = {}): NestingNode {
  return {
    compositionId,
    name,
    version: '1.0.0',
    nested: Object.entries(nests).map(([element, properties]) => ({ element, properties })),
    elements: ['Db', 'Web', ...Object.keys(nests)],
    primed: true,
  };
}

describe('nested composition settings', () => {
  it('reads compositionId, outputs and elementProperties', () => {
    const { settings, problems } = nestedSettingsOf({
      compositionId: SLICE.toUpperCase(),
      outputs: { url: ['Web', 'baseUrl'] },
      elementProperties: { Db: { size: 3 } },
    });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      compositionId: SLICE,
      outputs: { url: { element: 'Web', attribute: 'baseUrl' } },
      elementProperties: { Db: { size: 3 } },
    });
  });

  it('names each bad field', () => {
    const { settings, problems } = nestedSettingsOf({
      compositionId: 'slice',
      outputs: { url: ['Web'] },
      elementProperties: { Db: 3 },
    });
    expect(settings).toBeNull();
    expect(problems.map((problem) => problem.field)).toEqual([
      'properties.compositionId',
      'properties.outputs.url',
      'properties.elementProperties.Db',
    ]);
  });

  it('knows the nested type by derivation', () => {
    expect(isNestedCompositionTemplate({ types: ['x.Site', NESTED_COMPOSITION_TYPE] })).toBe(true);
    expect(isNestedCompositionTemplate({ types: ['x.Site'] })).toBe(false);
    expect(isNestedCompositionTemplate({})).toBe(false);
  });
});

describe('nesting at commission', () => {
  it('accepts a site made of two nested compositions', () => {
    const stored = new Map([
      [SLICE, node(SLICE, 'Slice')],
      [CORE, node(CORE, 'Core')],
    ]);
    const site = node(SITE, 'Site', {
      SliceElement: { compositionId: SLICE, outputs: { url: ['Web', 'baseUrl'] } },
      CoreElement: { compositionId: CORE, elementProperties: { Db: { size: 1 } } },
    });
    expect(nestingProblems(site, (id) => stored.get(id))).toEqual([]);
  });

  it('refuses an unknown child and outputs or properties naming no child element, every problem at once', () => {
    const stored = new Map([[SLICE, node(SLICE, 'Slice')]]);
    const site = node(SITE, 'Site', {
      Gone: { compositionId: UNKNOWN },
      SliceElement: { compositionId: SLICE, outputs: { url: ['Nope', 'x'] }, elementProperties: { Other: {} } },
    });
    const problems = nestingProblems(site, (id) => stored.get(id));
    expect(problems).toEqual([
      {
        field: 'topology_template.node_templates.Gone.properties.compositionId',
        rule: `must name a commissioned composition definition; ${UNKNOWN} is not one`,
      },
      {
        field: 'topology_template.node_templates.SliceElement.properties.outputs.url',
        rule: `must name an element of Slice 1.0.0 (${SLICE}); Nope is not one`,
      },
      {
        field: 'topology_template.node_templates.SliceElement.properties.elementProperties.Other',
        rule: `must name an element of Slice 1.0.0 (${SLICE}); Other is not one`,
      },
    ]);
  });

  it('refuses a definition that nests itself', () => {
    const site = node(SITE, 'Site', { Me: { compositionId: SITE } });
    expect(() => assertNesting(site, () => undefined)).toThrow(
      `must not nest a definition that nests this one: Site 1.0.0 (${SITE}) -> Site 1.0.0 (${SITE})`,
    );
  });

  it('refuses a cycle through other definitions, with its path', () => {
    // Core nests Slice, which nests the stored Site; the Site updated to nest Core closes the cycle.
    const stored = new Map([
      [SITE, node(SITE, 'Site')],
      [SLICE, node(SLICE, 'Slice', { SiteElement: { compositionId: SITE } })],
      [CORE, node(CORE, 'Core', { SliceElement: { compositionId: SLICE } })],
    ]);
    const updated = node(SITE, 'Site', { CoreElement: { compositionId: CORE } });
    let thrown: unknown;
    try {
      assertNesting(updated, (id) => stored.get(id));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).code).toBe('VALIDATION_FAILED');
    expect((thrown as DomainError).details).toEqual({
      problems: [
        {
          field: 'topology_template.node_templates.CoreElement.properties.compositionId',
          rule:
            `must not nest a definition that nests this one: Site 1.0.0 (${SITE}) -> Core 1.0.0 (${CORE}) -> ` +
            `Slice 1.0.0 (${SLICE}) -> Site 1.0.0 (${SITE})`,
        },
      ],
    });
  });

  it('accepts a diamond: two elements nesting the same definition is no cycle', () => {
    const stored = new Map([
      [CORE, node(CORE, 'Core')],
      [SLICE, node(SLICE, 'Slice', { CoreElement: { compositionId: CORE } })],
    ]);
    const site = node(SITE, 'Site', { A: { compositionId: SLICE }, B: { compositionId: CORE } });
    expect(nestingProblems(site, (id) => stored.get(id))).toEqual([]);
  });
});

describe('nested definitions must be primed', () => {
  it('names every unprimed definition, deeper ones too', () => {
    const stored = new Map([
      [CORE, { ...node(CORE, 'Core'), primed: false }],
      [SLICE, node(SLICE, 'Slice', { CoreElement: { compositionId: CORE } })],
    ]);
    const site = node(SITE, 'Site', { SliceElement: { compositionId: SLICE } });
    expect(unprimedNested(site, (id) => stored.get(id)).map((found) => found.name)).toEqual(['Core']);
    expect(() => assertNestedPrimed(site, (id) => stored.get(id), 'prime Site')).toThrow(
      `Cannot prime Site: nested composition definition(s) not primed: Core 1.0.0 (${CORE}); prime them first`,
    );
  });

  it('refuses nothing when all are primed', () => {
    const stored = new Map([[SLICE, node(SLICE, 'Slice')]]);
    const site = node(SITE, 'Site', { SliceElement: { compositionId: SLICE } });
    expect(() => assertNestedPrimed(site, (id) => stored.get(id), 'deploy')).not.toThrow();
  });
});
