import { markdownPage } from './definition-docs.service';

describe('markdownPage', () => {
  it('renders the tables of a generated page', () => {
    const html = markdownPage('Composition x', '# Title\n\n| a | b |\n| --- | --- |\n| `1` | two |\n');

    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<td><code>1</code></td>');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  });

  it('shows raw HTML as text and drops script URLs, even in Markdown the generator did not escape', () => {
    const html = markdownPage(
      '<b>title</b>',
      '<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1))\n',
    );

    expect(html).not.toMatch(/<script|<img|<b>|href="javascript/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<title>&lt;b&gt;title&lt;/b&gt;</title>');
  });
});
