import { DomainError } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import { formatProblems, validateServiceTemplate } from '@acm/tosca';
import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';

/** Validates service templates with the configured element and composition type names. */
@Injectable()
export class TemplateReader {
  constructor(@Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig) {}

  /** The template's structure, or a VALIDATION_FAILED refusal listing every problem with its path. */
  read(template: unknown): CompositionTemplateInfo {
    const result = validateServiceTemplate(template, {
      elementTypeName: this.config.toscaElementName,
      compositionTypeName: this.config.toscaCompositionName,
    });
    if (!result.ok) {
      throw new DomainError('VALIDATION_FAILED', formatProblems(result.problems), { problems: result.problems });
    }
    return result.definition;
  }
}
