import { DomainError } from '../errors';
import { validateInstanceElements } from './instance-elements';

const composition = [
  { name: 'a', version: '1.0.0' },
  { name: 'b', version: '1.2.3' },
];
const id = (n: number): string => `00000000-0000-4000-8000-00000000000${n}`;

describe(validateInstanceElements.name, () => {
  it('accepts each composition element exactly once', () => {
    expect(() =>
      validateInstanceElements(composition, [
        { id: id(1), definition: { name: 'a', version: '1.0.0' } },
        { id: id(2), definition: { name: 'b', version: '1.2.3' } },
      ]),
    ).not.toThrow();
  });

  it('reports every problem at once', () => {
    let caught: unknown;
    try {
      validateInstanceElements(composition, [
        { id: id(1), definition: { name: 'x', version: '1.0.0' } },
        { id: id(2), definition: { name: 'b', version: '9.9.9' } },
      ]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    const problems = (caught as DomainError).details['problems'];
    expect(problems).toEqual([
      `elements["${id(1)}"].definition: x 1.0.0 Not found in the composition`,
      `elements["${id(2)}"].definition: b Version not matching: expected 1.2.3, got 9.9.9`,
    ]);
  });

  it('refuses a missing element with ONAP wording', () => {
    expect(() =>
      validateInstanceElements(composition, [{ id: id(1), definition: { name: 'a', version: '1.0.0' } }]),
    ).toThrow(
      'Elements of the instance not matching with the elements of the composition: expected 2, got 1; missing b',
    );
  });

  it('refuses the same definition twice', () => {
    expect(() =>
      validateInstanceElements(composition, [
        { id: id(1), definition: { name: 'a', version: '1.0.0' } },
        { id: id(2), definition: { name: 'a', version: '1.0.0' } },
      ]),
    ).toThrow(`a is already used by element ${id(1)}`);
  });
});
