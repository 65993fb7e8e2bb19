import type { CompositionDefinition } from '@acm/domain';
import { Clock, DomainError } from '@acm/domain';
import { load, JSON_SCHEMA } from 'js-yaml';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRuntimeConfig } from '../config/runtime.config';
import { InstanceProperties } from './instance-properties';

const TEMPLATE = load(
  readFileSync(join(__dirname, '..', '..', '..', '..', 'tosca', 'examples', 'sim-typed-properties.yaml'), 'utf8'),
  { schema: JSON_SCHEMA },
);
const DEFINITION = { serviceTemplate: TEMPLATE } as unknown as CompositionDefinition;
const ELEMENT = {
  id: '5e1f0000-0000-4000-8000-000000009001',
  definition: { name: 'acm.example.typed.SimElement' },
  properties: { endpoint: { host: 'web.example' }, replicas: 0 },
};

class FixedClock extends Clock {
  now(): number {
    return 0;
  }
}

function checker(mode: string): InstanceProperties {
  return new InstanceProperties(loadRuntimeConfig({ PROPERTY_VALIDATION: mode }), new FixedClock());
}

describe('InstanceProperties', () => {
  it('off: stores the properties as sent, without defaults or problems', () => {
    const checked = checker('off').check(DEFINITION, [ELEMENT]);

    expect(checked.properties.get(ELEMENT.id)).toBe(ELEMENT.properties);
    expect(checked.problems).toEqual([]);
  });

  it('warn: stores the properties with their defaults and returns the problems', () => {
    const checked = checker('warn').check(DEFINITION, [ELEMENT]);

    expect(checked.properties.get(ELEMENT.id)).toMatchObject({
      endpoint: { host: 'web.example', port: 443, protocol: 'https' },
      replicas: 0,
    });
    expect(checked.problems.map((problem) => problem.rule)).toEqual(['property-constraint']);
  });

  it('strict: refuses with VALIDATION_FAILED listing every problem', () => {
    const refuse = (): unknown => checker('strict').check(DEFINITION, [ELEMENT]);

    expect(refuse).toThrow(DomainError);
    expect(refuse).toThrow(
      `elements["${ELEMENT.id}"].properties.replicas: must be greater than or equal to 1 (greater_or_equal), got 0`,
    );
  });
});
