import { MAX_EXCERPT_CHARACTERS } from './excerpt';
import { DEFAULT_BODY_LIMITS, decodeBody, parseBody } from './guarded-parse';

/** The classic "billion laughs": nine levels of nine aliases, 9^9 strings once expanded, in under 600 bytes. */
const BILLION_LAUGHS = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
  'h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
  'i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]',
].join('\n');

function nested(depth: number, format: 'json' | 'yaml'): string {
  return format === 'json'
    ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

describe(parseBody.name, () => {
  it('parses JSON and JSON-compatible YAML to the same value', () => {
    const json = parseBody('{"name":"x","version":"1.0.0","when":"2024-01-02"}', 'json');
    const yaml = parseBody('name: x\nversion: 1.0.0\nwhen: 2024-01-02\n', 'yaml');

    expect(json).toEqual({ ok: true, value: { name: 'x', version: '1.0.0', when: '2024-01-02' } });
    expect(yaml).toEqual(json);
  });

  it('refuses a billion-laughs YAML body by counting the values its aliases stand for', () => {
    expect(BILLION_LAUGHS.length).toBeLessThan(600);

    const result = parseBody(BILLION_LAUGHS, 'yaml');

    expect(result).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'too-many-values', message: expect.stringContaining('1000000 values') }),
    });
  });

  it('refuses a self-referencing alias (a value that contains itself) as too deep', () => {
    const result = parseBody('a: &x [*x]\n', 'yaml');

    expect(result).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'too-deep', path: expect.stringMatching(/^a\[0\]\[0\]/) }),
    });
  });

  it.each(['json', 'yaml'] as const)('refuses %s nested 10,000 levels and accepts it at the limit', (format) => {
    expect(parseBody(nested(10_000, format), format)).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'too-deep', message: expect.stringContaining('100 levels') }),
    });
    expect(parseBody(nested(100, format), format).ok).toBe(true);
    expect(parseBody(nested(101, format), format).ok).toBe(false);
  });

  it.each([
    ['NUL in a value', '{"a":{"b":"x\\u0000y"}}', 'a.b', 'value must not contain NUL'],
    ['NUL in a key', '{"a":{"x\\u0000":1}}', 'a["x\\u0000"]', 'key must not contain NUL'],
    ['a lone high surrogate', '{"list":["ok","\\ud800"]}', 'list[1]', 'lone UTF-16 surrogate (\\ud800)'],
    ['a lone low surrogate in a key', '{"\\udc00":1}', '["\\udc00"]', 'lone UTF-16 surrogate (\\udc00)'],
  ])('refuses %s, naming its path', (_label, text, path, message) => {
    const result = parseBody(text, 'json');

    expect(result).toEqual({
      ok: false,
      refusal: { rule: 'forbidden-character', path, message: expect.stringContaining(message) },
    });
  });

  it('refuses a JSON object of 200,000 keys before parsing it, naming the rule and the limit', () => {
    const text = `{${Array.from({ length: 200_000 }, (_, index) => `"k${index}":${index}`).join(',')}}`;

    expect(parseBody(text, 'json')).toEqual({
      ok: false,
      refusal: {
        rule: 'too-many-nodes',
        path: '',
        message: expect.stringContaining('more than 50000 keys and values'),
      },
    });
  });

  it.each([
    ['json', '{"a":1,"b":[true,null],"c":{"d":"e"}}'],
    ['yaml', 'a: 1\nb: [true, null]\nc: {d: e}\n'],
  ] as const)('counts the keys and values of %s as written: 11 nodes pass a limit of 11, not of 10', (format, text) => {
    const limits = (maxNodes: number) => ({ ...DEFAULT_BODY_LIMITS, maxNodes });

    expect(parseBody(text, format, limits(11))).toEqual({ ok: true, value: { a: 1, b: [true, null], c: { d: 'e' } } });
    expect(parseBody(text, format, limits(10))).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'too-many-nodes', message: expect.stringContaining('more than 10 ') }),
    });
  });

  it('counts a JSON string as one node, whatever punctuation and escapes it holds', () => {
    const text = '{"a":"x\\"[{:,1 2}]\\\\","b":-1.5e3}';

    expect(parseBody(text, 'json', { ...DEFAULT_BODY_LIMITS, maxNodes: 5 })).toEqual({
      ok: true,
      value: { a: 'x"[{:,1 2}]\\', b: -1500 },
    });
    expect(parseBody(text, 'json', { ...DEFAULT_BODY_LIMITS, maxNodes: 4 })).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'too-many-nodes' }),
    });
  });

  it('refuses a YAML body of 150,000 distinct anchors, and counts an anchor name once', () => {
    const text = Array.from({ length: 150_000 }, (_, index) => `k${index}: &a${index} v${index}`).join('\n');

    expect(parseBody(text, 'yaml')).toEqual({
      ok: false,
      refusal: { rule: 'too-many-anchors', path: '', message: expect.stringContaining('more than 10000 YAML anchors') },
    });
    const limits = { ...DEFAULT_BODY_LIMITS, maxAnchors: 2 };
    expect(parseBody('a: &x 1\nb: &y 2\nc: *x\nd: &x 3\n', 'yaml', limits)).toEqual({
      ok: true,
      value: { a: 1, b: 2, c: 1, d: 3 },
    });
    expect(parseBody('a: &x 1\nb: &y 2\nc: &z 3\n', 'yaml', limits)).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'too-many-anchors' }),
    });
  });

  it('accepts surrogate pairs (characters outside the BMP)', () => {
    expect(parseBody('{"emoji":"\\ud83d\\ude00"}', 'json')).toEqual({ ok: true, value: { emoji: '😀' } });
  });

  it('names the line and column of a syntax error', () => {
    expect(parseBody('{"a":\n', 'json')).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'syntax', line: 2, column: 1 }),
    });
    expect(parseBody('a: [1,\n', 'yaml')).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'syntax', message: expect.stringMatching(/^Invalid YAML at line/) }),
    });
  });

  it('excerpts a huge key in the path', () => {
    const key = 'k'.repeat(100_000);

    const result = parseBody(`{"${key}":"\\u0000"}`, 'json');

    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.refusal.path.length).toBeLessThan(MAX_EXCERPT_CHARACTERS + 40);
  });
});

describe(decodeBody.name, () => {
  it('refuses bytes that are not UTF-8 and decodes those that are', () => {
    expect(decodeBody(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({
      ok: false,
      refusal: expect.objectContaining({ rule: 'encoding' }),
    });
    expect(decodeBody(Buffer.from('{"é":1}', 'utf8'))).toEqual({ ok: true, text: '{"é":1}' });
  });
});
