import { isDomainError } from '@acm/domain';
import { parseInstanceBody } from './instance-body';

const COMPOSITION = '6a0e0000-0000-4000-8000-00000000c001';
const ELEMENT = '6a0e0000-0000-4000-8000-00000000e001';

function bodyWith(element: Record<string, unknown>): unknown {
  return {
    compositionId: COMPOSITION,
    name: 'group',
    version: '1.0.0',
    elements: {
      [ELEMENT]: { id: ELEMENT, definition: { name: 'acm.example.group.Worker', version: '1.0.0' }, ...element },
    },
  };
}

function refusalOf(body: unknown): string {
  try {
    parseInstanceBody(body);
  } catch (error) {
    return isDomainError(error) ? error.message : String(error);
  }
  throw new Error('the body was accepted');
}

describe('parseInstanceBody: the count of a group element', () => {
  it('carries an integer count, and none when the element gives none', () => {
    expect(parseInstanceBody(bodyWith({ count: 4 })).elements[0]?.count).toBe(4);
    expect(parseInstanceBody(bodyWith({})).elements[0]).not.toHaveProperty('count');
  });

  it.each([[2.5], ['3'], [true]])('refuses count %p, naming the field', (count) => {
    expect(refusalOf(bodyWith({ count }))).toContain(`elements["${ELEMENT}"].count: must be an integer, got`);
  });
});

describe('parseInstanceBody: the drift mode of an instance', () => {
  it('accepts off, warn and correct, and refuses anything else naming the field', () => {
    const withDrift = (drift: unknown) => ({ ...(bodyWith({}) as Record<string, unknown>), metadata: { drift } });
    expect(parseInstanceBody(withDrift('correct')).metadata).toEqual({ drift: 'correct' });
    expect(refusalOf(withDrift('heal'))).toBe('metadata.drift: must be one of off, warn, correct, got "heal"');
  });
});
