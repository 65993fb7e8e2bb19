import { DomainError, ReadModels } from '@acm/domain';
import { formatProblems, renderCompositionDocs } from '@acm/tosca';
import { Inject, Injectable } from '@nestjs/common';
import MarkdownIt from 'markdown-it';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';

/**
 * markdown-it with raw HTML off: any tag in the Markdown is shown as text, and its link validation refuses
 * `javascript:`, `vbscript:`, `file:` and `data:` URLs. The generator already escapes template text; this is the
 * second wall.
 */
const MARKDOWN = new MarkdownIt({ html: false, linkify: false, typographer: false });

const STYLE =
  'body{font-family:sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem}' +
  'table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top}' +
  'code{background:#f4f4f4;padding:0 .2rem}';

/** Renders Markdown from the docs generator as a standalone HTML page. */
export function markdownPage(title: string, markdown: string): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${MARKDOWN.utils.escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    MARKDOWN.render(markdown).trimEnd(),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** GET .../compositions/{id}/docs: the documentation generated from a stored definition. */
@Injectable()
export class DefinitionDocsService {
  constructor(
    private readonly reads: ReadModels,
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
  ) {}

  async markdown(compositionId: string): Promise<string> {
    const found = await this.reads.read((store) => store.definitions.find(compositionId));
    if (!found) {
      throw new DomainError('NOT_FOUND', `Automation composition definition ${compositionId} not found`, {
        compositionId,
      });
    }
    const result = renderCompositionDocs(found.value.serviceTemplate, {
      elementTypeName: this.config.toscaElementName,
      compositionTypeName: this.config.toscaCompositionName,
    });
    if (!result.ok) {
      // A stored definition passed the same validation when it was commissioned, unless the type names changed since.
      throw new DomainError('VALIDATION_FAILED', formatProblems(result.problems), { problems: result.problems });
    }
    return result.markdown;
  }

  async html(compositionId: string): Promise<string> {
    return markdownPage(`Composition ${compositionId}`, await this.markdown(compositionId));
  }
}
