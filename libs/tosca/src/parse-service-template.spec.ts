import { parseServiceTemplate } from './parse-service-template';
import { fixtureText } from './testing/tosca-fixtures';

describe(parseServiceTemplate.name, () => {
  describe('accepted bodies', () => {
    it.each([
      ['JSON, detected by its first character', '  {"tosca_definitions_version": "x", "a": 1}', undefined],
      ['YAML, detected by default', 'tosca_definitions_version: x\na: 1\n', undefined],
      ['JSON declared as JSON', '{"tosca_definitions_version": "x", "a": 1}', 'json' as const],
      ['JSON declared as YAML (YAML is a superset)', '{"tosca_definitions_version": "x", "a": 1}', 'yaml' as const],
      ['YAML with a byte-order mark', '\uFEFFtosca_definitions_version: x\na: 1\n', undefined],
    ])('parses %s', (_label, text, contentType) => {
      const result = parseServiceTemplate(text, contentType);

      expect(result).toEqual({ ok: true, template: { tosca_definitions_version: 'x', a: 1 } });
    });

    it('parses every example fixture', () => {
      for (const name of ['sim-single-element', 'sim-three-phase', 'sim-two-participants', 'sim-dependencies']) {
        expect(parseServiceTemplate(fixtureText(`examples/${name}.yaml`)).ok).toBe(true);
      }
    });

    it('resolves anchors, aliases and merge keys', () => {
      const text = 'base: &base {provider: acm, startPhase: 1}\nelement:\n  <<: *base\n  startPhase: 2\ncopy: *base\n';

      const result = parseServiceTemplate(text);

      expect(result).toEqual({
        ok: true,
        template: {
          base: { provider: 'acm', startPhase: 1 },
          element: { provider: 'acm', startPhase: 2 },
          copy: { provider: 'acm', startPhase: 1 },
        },
      });
    });

    it('keeps YAML scalars JSON-compatible: dates, yes/no and versions stay strings', () => {
      const result = parseServiceTemplate('date: 2024-01-02\nflag: yes\nversion: 1.0.0\nnumber: 1.5\nnothing: ~\n');

      expect(result).toEqual({
        ok: true,
        template: { date: '2024-01-02', flag: 'yes', version: '1.0.0', number: 1.5, nothing: null },
      });
    });

    it('lets a repeated key override the earlier one, like JSON.parse and ONAP (Jackson) do', () => {
      expect(parseServiceTemplate('a: 1\na: 2\n')).toEqual({ ok: true, template: { a: 2 } });
    });
  });

  describe('refused bodies', () => {
    it.each([
      ['broken YAML', fixtureText('invalid/broken-yaml.txt'), undefined, 'Invalid YAML at line 8, column 6', 8, 6],
      ['broken JSON', fixtureText('invalid/broken-json.txt'), undefined, 'Invalid JSON at line 4, column 24', 4, 24],
      ['JSON cut short', '{"a":\n', 'json' as const, 'Invalid JSON at line 2, column 1', 2, 1],
      ['YAML declared as JSON', 'a: 1', 'json' as const, 'Invalid JSON', undefined, undefined],
      [
        'two YAML documents',
        'a: 1\n---\nb: 2\n',
        undefined,
        'Invalid YAML: expected a single document',
        undefined,
        undefined,
      ],
    ])('explains %s as a syntax problem', (_label, text, contentType, messageStart, line, column) => {
      const result = parseServiceTemplate(text, contentType);

      expect(result.ok).toBe(false);
      const [problem] = result.ok ? [] : result.problems;
      expect(problem).toMatchObject({ path: '', rule: 'syntax', ...(line === undefined ? {} : { line, column }) });
      expect(problem?.message.startsWith(messageStart)).toBe(true);
    });

    it.each([
      [
        'a YAML list',
        fixtureText('invalid/list-body.yaml'),
        'The body is a list: a TOSCA service template must be a mapping',
      ],
      ['a JSON list', '[]', 'The body is a list: a TOSCA service template must be a mapping'],
      ['a scalar', 'just text', 'The body is a string: a TOSCA service template must be a mapping'],
      ['an empty body', '', 'The body is empty: expected a TOSCA service template'],
      ['a null document', 'null', 'The body is empty: expected a TOSCA service template'],
    ])('refuses %s at the top level', (_label, text, message) => {
      expect(parseServiceTemplate(text)).toEqual({
        ok: false,
        problems: [{ path: '', rule: 'not-a-mapping', message }],
      });
    });

    it.each([
      ['a JavaScript function', 'a: !!js/function "() => 1"'],
      ['a binary', 'a: !!binary aGVsbG8='],
      ['a custom tag', 'a: !Ref something'],
    ])('refuses %s tag', (_label, text) => {
      const result = parseServiceTemplate(text);

      expect(result.ok ? [] : result.problems.map((p) => p.rule)).toEqual(['syntax']);
    });

    it('refuses an alias bomb instead of expanding it', () => {
      const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
      for (let level = 1; level < 8; level += 1) {
        const previous = String.fromCharCode(96 + level);
        const current = String.fromCharCode(97 + level);
        levels.push(`${current}: &${current} [${Array(10).fill(`*${previous}`).join(', ')}]`);
      }

      const result = parseServiceTemplate(levels.join('\n'));

      expect(result.ok ? [] : result.problems.map((p) => p.rule)).toEqual(['too-large']);
    });

    it('refuses a self-referencing alias', () => {
      const result = parseServiceTemplate('a: &loop\n  - *loop\n');

      expect(result.ok ? [] : result.problems.map((p) => p.rule)).toEqual(['too-large']);
    });
  });
});
