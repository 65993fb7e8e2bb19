import { graphQuery, healthColumns, instanceRow, instanceTable, nestingView } from './instance-view';

const PARENT = '11111111-1111-4111-8111-111111111111';
const CHILD = '22222222-2222-4222-8222-222222222222';
const SLICE = '33333333-3333-4333-8333-333333333333';

const element = (id: string, name: string, outProperties: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  definition: { name, version: '1.0.0' },
  deployState: 'DEPLOYED',
  lockState: 'LOCKED',
  outProperties,
});

describe('acmctl instances get: nesting', () => {
  it('shows a PARENT line for a child, from metadata.nestedIn', () => {
    const child = {
      instanceId: CHILD,
      metadata: { nestedIn: { instanceId: PARENT, elementId: SLICE } },
      elements: { a: element('a', 'acm.example.slice.Network') },
    };
    expect(nestingView(child).rows).toEqual([['PARENT', PARENT, SLICE]]);
    expect(instanceTable(child).split('\n').slice(-2)).toEqual([
      'NESTING  INSTANCE                              ELEMENT',
      `PARENT   ${PARENT}  ${SLICE}`,
    ]);
  });

  it('shows a CHILD line per nested element that has a child instance', () => {
    const parent = {
      instanceId: PARENT,
      elements: {
        [SLICE]: element(SLICE, 'acm.example.site.Slice', {
          url: 'http://x',
          nestedComposition: { childInstanceId: CHILD },
        }),
        // Ordered, no child made yet: nothing to link.
        b: element('b', 'acm.example.site.Other', { nestedComposition: { childInstanceId: null } }),
        c: element('c', 'acm.example.site.Policies'),
      },
    };
    expect(nestingView(parent).rows).toEqual([['CHILD', CHILD, `${SLICE} (acm.example.site.Slice)`]]);
    expect(instanceTable(parent)).toContain(`CHILD    ${CHILD}  ${SLICE} (acm.example.site.Slice)`);
  });

  it('shows no nesting section for an instance that neither nests nor is nested', () => {
    const plain = { instanceId: PARENT, metadata: {}, elements: { c: element('c', 'x') } };
    expect(nestingView(plain).rows).toEqual([]);
    expect(instanceTable(plain)).not.toContain('NESTING');
  });
});

describe('acmctl instances get: observed health', () => {
  const observedInstance = {
    instanceId: PARENT,
    deployState: 'DEPLOYED',
    elements: {
      a: element('a', 'acm.example.Db'),
      b: element('b', 'acm.example.Web'),
      c: element('c', 'acm.example.Q'),
    },
    observedHealth: {
      health: 'Missing',
      elements: {
        a: { health: 'Missing', reason: 'deleted by hand', since: '2026-12-07T16:00:00.000Z', drift: ['/replicas'] },
        b: { health: 'Healthy', reason: null, since: '2026-12-07T16:00:00.000Z', drift: ['/x', '/y/z'] },
      },
    },
  };

  it('adds the instance’s worst health and each element’s health and drift', () => {
    const lines = instanceTable(observedInstance).split('\n');
    expect(lines[0]).toMatch(/ALLOWED ORDERS +HEALTH$/);
    expect(lines[1]).toMatch(/ Missing$/);
    const elementLines = lines.slice(lines.findIndex((line) => line.startsWith('ELEMENT')));
    expect(elementLines[0]).toMatch(/^ELEMENT +DEFINITION +DEPLOY +LOCK +HEALTH +DRIFT +MESSAGE$/);
    expect(elementLines.slice(1, 4).map((line) => line.split(/ +/).slice(4, 6))).toEqual([
      ['Missing', '/replicas'],
      ['Healthy', '/x,/y/z'],
      // Never observed while another element was.
      ['Unknown', '-'],
    ]);
  });

  it('shows no health column when nothing was observed (ONAP’s runtime)', () => {
    const { observedHealth: _ignored, ...plain } = observedInstance;
    expect(healthColumns(plain)).toBeNull();
    expect(instanceTable(plain)).not.toContain('HEALTH');
    expect(instanceTable(plain)).not.toContain('DRIFT');
  });
});

describe('acmctl graph: query', () => {
  it('passes --depth as given, beside the format', () => {
    expect(graphQuery('json', undefined)).toBe('format=json');
    expect(graphQuery('dot', '1')).toBe('format=dot&depth=1');
    expect(graphQuery('dot', '-1&x')).toBe('format=dot&depth=-1%26x');
  });
});

describe('acmctl instances: the project column', () => {
  it("shows the project of the instance's definition, empty from a runtime that does not say", () => {
    const instance = { instanceId: CHILD, compositionId: PARENT, name: 'n', version: '1.0.0', elements: {} };
    const [withProject] = instanceTable({ ...instance, project: 'team-a' }).split('\n');
    expect(withProject).toMatch(/VERSION +PROJECT +DEPLOY/);
    expect(instanceRow({ ...instance, project: 'team-a' })[4]).toBe('team-a');
    expect(instanceRow(instance)[4]).toBe('');
  });
});
