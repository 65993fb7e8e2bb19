import { loadRuntimeConfig } from './runtime.config';

describe('PROPERTY_VALIDATION', () => {
  it('defaults to warn, so that loosely typed ONAP definitions keep working', () => {
    expect(loadRuntimeConfig({}).propertyValidation).toBe('warn');
  });

  it.each([
    ['strict', 'strict'],
    ['OFF', 'off'],
    ['Warn', 'warn'],
  ])('reads %s as %s', (text, mode) => {
    expect(loadRuntimeConfig({ PROPERTY_VALIDATION: text }).propertyValidation).toBe(mode);
  });

  it('refuses another value, naming the variable and the allowed values', () => {
    expect(() => loadRuntimeConfig({ PROPERTY_VALIDATION: 'loose' })).toThrow(
      'PROPERTY_VALIDATION: must be one of strict, warn, off, got "loose"',
    );
  });
});
