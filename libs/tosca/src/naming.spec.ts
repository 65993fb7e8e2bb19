import {
  MAX_NAME_LENGTH,
  MAX_VERSION_LENGTH,
  isValidName,
  isValidVersion,
  nameProblem,
  versionProblem,
} from './naming';

describe(isValidVersion.name, () => {
  it.each([
    '0.0.0',
    '1.0.0',
    '10.20.30',
    '1.0.1-1',
    '1.2.3+build1',
    '1.0.0-rc.1+build.5',
    '1.0.0-alpha-a.b-c',
    '2.3.4-0abc',
  ])('accepts %s', (version) => {
    expect(isValidVersion(version)).toBe(true);
  });

  it.each<unknown>(['1.0', '1', 'v1.0.0', '01.0.0', '1.0.0-', '1.0.0+', '1.0.0-01', '1.0.0 ', '', 1, 1.5, null])(
    'refuses %p',
    (version) => {
      expect(isValidVersion(version)).toBe(false);
    },
  );
});

describe(isValidName.name, () => {
  it.each(['a', 'onap.policy.clamp.ac.element.Sim_AutomationCompositionElement', 'A-b_c.9'])('accepts %s', (name) => {
    expect(isValidName(name)).toBe(true);
  });

  it.each<unknown>(['', 'with space', 'a:b', 'a/b', 'ä', 7])('refuses %p', (name) => {
    expect(isValidName(name)).toBe(false);
  });
});

describe('name and version length limits', () => {
  it(`accepts names and versions of ${MAX_NAME_LENGTH} characters and refuses longer ones, saying why`, () => {
    expect(isValidName('n'.repeat(MAX_NAME_LENGTH))).toBe(true);
    expect(nameProblem('n'.repeat(MAX_NAME_LENGTH + 1))).toBe(
      `must be at most ${MAX_NAME_LENGTH} characters long, got ${MAX_NAME_LENGTH + 1}`,
    );
    const longVersion = `1.0.0-${'a'.repeat(MAX_VERSION_LENGTH)}`;
    expect(versionProblem(longVersion)).toBe(
      `must be at most ${MAX_VERSION_LENGTH} characters long, got ${longVersion.length}`,
    );
  });

  it('quotes a refused name as a short escaped excerpt', () => {
    const reason = nameProblem(`bad name\u0000${'x'.repeat(200)}`);

    expect(reason).toContain('got "bad name\\u0000xxx');
    expect(reason).toContain('... (209 characters)');
    expect(reason!.length).toBeLessThan(300);
  });
});
