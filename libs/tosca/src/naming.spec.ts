import { isValidName, isValidVersion } from './naming';

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
