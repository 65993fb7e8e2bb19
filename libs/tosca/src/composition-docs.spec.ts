import { ACM_COMPOSITION_TYPE, ACM_ELEMENT_TYPE } from './composition';
import { renderCompositionDocs } from './composition-docs';
import { fixtureFiles, fixtureTemplate, fixtureText } from './testing/tosca-fixtures';

const OPTIONS = { elementTypeName: ACM_ELEMENT_TYPE, compositionTypeName: ACM_COMPOSITION_TYPE };
const EXAMPLES = fixtureFiles('examples', '.yaml').map((file) => file.replace(/\.yaml$/, ''));

function markdownOf(template: unknown): string {
  const result = renderCompositionDocs(template, OPTIONS);
  if (!result.ok) {
    throw new Error(`not documented: ${JSON.stringify(result.problems)}`);
  }
  return result.markdown;
}

/** The typed example with one description replaced, to see how template text reaches the page. */
function typedWithDescription(description: string): unknown {
  const template = fixtureTemplate('examples/sim-typed-properties.yaml') as Record<string, any>;
  template['node_types']['org.onap.policy.clamp.acm.SimAutomationCompositionElement'].properties.replicas.description =
    description;
  return template;
}

describe('renderCompositionDocs', () => {
  it.each(EXAMPLES)('matches the committed page of %s (regenerate with npm run docs:tosca)', (example) => {
    // On a difference: npm run docs:tosca -- tosca/examples/<example>.yaml --out tosca/examples/docs/<example>.md
    expect(markdownOf(fixtureTemplate(`examples/${example}.yaml`))).toBe(fixtureText(`examples/docs/${example}.md`));
  });

  it('documents each element with its type, participant type, phase, stage, dependencies and properties', () => {
    const markdown = markdownOf(fixtureTemplate('examples/sim-dependencies.yaml'));

    expect(markdown).toContain('### acm.example.deps.Frontend 1.0.0');
    expect(markdown).toContain('| Type | `org.onap.policy.clamp.acm.SimAutomationCompositionElement` 1.0.0 |');
    expect(markdown).toContain(
      '| Participant type | `org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0` |',
    );
    expect(markdown).toContain('| Start phase | 0 |');
    expect(markdown).toContain('| Stage | prepare 0; migrate 0 |');
    expect(markdown).toContain('| Depends on | `acm.example.deps.Backend`, `acm.example.deps.Database` |');
    expect(markdown).toContain('| Property | Type | Required | Default | Constraints | Description | Sensitive |');
  });

  it('gives each property its type, required flag, default, constraints, description and sensitivity', () => {
    const markdown = markdownOf(fixtureTemplate('examples/sim-typed-properties.yaml'));

    expect(markdown).toContain(
      '| `replicas` | `integer` | no | `1` | `greater_or_equal 1`, `less_or_equal 10` | How many copies the element runs. | no |',
    );
    expect(markdown).toContain('| `labels` | `map` of `string` | no |  | entries: `max_length 63` |');
    expect(markdown).toContain('| `apiKey` | `string` | no |  |  | Key the element presents to the endpoint. | yes |');
    expect(markdown).toContain('### acm.example.typed.Endpoint');
    expect(markdown).toContain('| `port` | `integer` | no | `443` | `in_range [1,65535]` | TCP port. | no |');
  });

  it('escapes template text, so a description cannot inject HTML, links or table cells', () => {
    const markdown = markdownOf(
      typedWithDescription('<script>alert(1)</script> [click](javascript:alert(1)) a | b **bold** `x`'),
    );

    expect(markdown).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt; \\[click\\](javascript:alert(1)) a \\| b \\*\\*bold\\*\\* \\`x\\`',
    );
    expect(markdown).not.toContain('<script');
  });

  it('keeps a description that starts like a heading or a list from becoming one', () => {
    const template = fixtureTemplate('examples/sim-typed-properties.yaml') as Record<string, any>;
    const nodeTemplates = template['topology_template'].node_templates;
    nodeTemplates['acm.example.typed.SimElement'].description = '# Title';
    nodeTemplates['acm.example.typed.Composition'].description = '1. first';

    const markdown = markdownOf(template);

    expect(markdown).toContain('\n\\# Title\n');
    expect(markdown).toContain('\n1\\. first\n');
  });

  it('refuses a template that is not commissionable, with its problems', () => {
    const result = renderCompositionDocs(fixtureTemplate('invalid/missing-types.yaml'), OPTIONS);

    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.problems.map((problem) => problem.rule)).toContain('type-not-found');
  });
});
