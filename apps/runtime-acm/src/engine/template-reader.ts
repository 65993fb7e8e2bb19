import { DomainError } from '@acm/domain';
import type { CompositionDefinition } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import { formatProblems, validateServiceTemplate } from '@acm/tosca';
import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';

/** Cached readings kept; a definition's revision changes with every change of its template. */
const CACHE_SIZE = 256;

/** Validates service templates with the configured element and composition type names. */
@Injectable()
export class TemplateReader {
  private readonly cache = new Map<string, CompositionTemplateInfo>();

  constructor(@Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig) {}

  /**
   * The structure of a stored definition. Every ACK needs it, so readings are cached by composition and
   * revision: a template only changes together with its revisionId. The element node templates are the ones
   * recorded when it was commissioned, not the ones the type names configured now would select: a stored
   * definition is never judged again by settings that changed after it was accepted.
   */
  readDefinition(definition: CompositionDefinition): CompositionTemplateInfo {
    const key = `${definition.compositionId}|${definition.revisionId}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      return cached;
    }
    const elementNames = Object.keys(definition.elementStateMap);
    const info = this.read(definition.serviceTemplate, elementNames.length > 0 ? { elementNames } : {});
    if (this.cache.size >= CACHE_SIZE) {
      const oldest = this.cache.keys().next();
      if (oldest.done !== true) {
        this.cache.delete(oldest.value);
      }
    }
    this.cache.set(key, info);
    return info;
  }

  /** The template's structure, or a VALIDATION_FAILED refusal listing every problem with its path. */
  read(template: unknown, recorded: { elementNames?: readonly string[] } = {}): CompositionTemplateInfo {
    const result = validateServiceTemplate(template, {
      elementTypeName: this.config.toscaElementName,
      compositionTypeName: this.config.toscaCompositionName,
      ...recorded,
    });
    if (!result.ok) {
      throw new DomainError('VALIDATION_FAILED', formatProblems(result.problems), { problems: result.problems });
    }
    return result.definition;
  }
}
