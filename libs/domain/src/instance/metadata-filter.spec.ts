import { DomainError } from '../errors';
import { metadataHolds, parseMetadataValues } from './metadata-filter';

describe('metadata filter', () => {
  it('reads strings, numbers and booleans as text', () => {
    expect(parseMetadataValues('filter.metadata', { site: 'prod', tier: 1, canary: true })).toEqual({
      site: 'prod',
      tier: '1',
      canary: 'true',
    });
    expect(parseMetadataValues('filter.metadata', {})).toEqual({});
  });

  it.each([
    ['a list', ['prod'], 'filter.metadata: must be an object'],
    ['a string', 'site=prod', 'filter.metadata: must be an object'],
    ['null', null, 'filter.metadata: must be an object'],
    ['an object value', { site: { name: 'prod' } }, 'filter.metadata.site: must be a string, number or boolean'],
    ['a null value', { site: null }, 'filter.metadata.site: must be a string, number or boolean, got null'],
    ['a list value', { tier: [1] }, 'filter.metadata.tier: must be a string, number or boolean, got [1]'],
  ])('refuses %s, naming the field and the rule', (_what, value, message) => {
    const refused = (): unknown => parseMetadataValues('filter.metadata', value);
    expect(refused).toThrow(DomainError);
    expect(refused).toThrow(message);
  });

  it('holds when the metadata has every value, compared as text', () => {
    expect(metadataHolds({ site: 'prod', tier: '1' }, { site: 'prod', tier: 1, other: 'x' })).toBe(true);
    expect(metadataHolds({ canary: 'true' }, { canary: true })).toBe(true);
    expect(metadataHolds({ site: 'prod' }, { site: 'dev' })).toBe(false);
    expect(metadataHolds({ site: 'prod' }, {})).toBe(false);
    expect(metadataHolds({ site: 'prod' }, null)).toBe(false);
    expect(metadataHolds({ site: '[object Object]' }, { site: {} })).toBe(false);
    expect(metadataHolds({}, null)).toBe(true);
  });
});
