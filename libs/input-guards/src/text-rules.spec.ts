import { forbiddenCharacterIn } from './text-rules';

describe(forbiddenCharacterIn.name, () => {
  it.each([
    ['NUL', 'ab\u0000', 'must not contain NUL (\\u0000), found at character 2'],
    ['a lone high surrogate at the end', 'ab\ud83d', 'lone UTF-16 surrogate (\\ud83d), found at character 2'],
    ['a lone low surrogate', '\ude00ab', 'lone UTF-16 surrogate (\\ude00), found at character 0'],
    ['two high surrogates', '\ud83d\ud83d\ude00', 'lone UTF-16 surrogate (\\ud83d), found at character 0'],
  ])('refuses %s', (_label, text, reason) => {
    expect(forbiddenCharacterIn(text)).toContain(reason);
  });

  it('accepts ordinary text, including characters outside the BMP', () => {
    expect(forbiddenCharacterIn('name-1.0 é 😀 \t\n')).toBeUndefined();
  });
});
