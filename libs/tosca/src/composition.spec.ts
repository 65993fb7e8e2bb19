import { ACM_ELEMENT_TYPE, isElementType } from './composition';

describe(isElementType.name, () => {
  const nodeTypes = {
    'acm.Child': { derived_from: ACM_ELEMENT_TYPE },
    'acm.GrandChild': { derived_from: 'acm.Child' },
    'acm.Other': { derived_from: 'tosca.nodes.Root' },
  };

  it.each<[string, boolean]>([
    [ACM_ELEMENT_TYPE, true],
    [`${ACM_ELEMENT_TYPE}.Specialised`, true],
    ['acm.Child', true],
    ['acm.GrandChild', false],
    ['acm.Other', false],
    ['acm.Undefined', false],
  ])('classifies %s as element: %p', (typeName, expected) => {
    expect(isElementType(typeName, nodeTypes, ACM_ELEMENT_TYPE)).toBe(expected);
  });
});
