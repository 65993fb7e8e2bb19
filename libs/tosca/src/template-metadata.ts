import { isMapping } from './guards';
import type { ServiceTemplate } from './service-template';

/**
 * The composition id a client put in `metadata.compositionId`. ONAP treats a POST carrying one as an update of that
 * definition instead of a new commissioning, so the runtime needs to read it before anything else.
 */
export function compositionIdOf(template: ServiceTemplate): string | undefined {
  const metadata: unknown = template.metadata;
  const id = isMapping(metadata) ? metadata['compositionId'] : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The template as stored and returned by the runtime: unchanged except for `metadata.compositionId`, which ONAP adds
 * on commissioning. Returns a copy so the caller's parsed body is never mutated.
 */
export function withCompositionId(template: ServiceTemplate, compositionId: string): ServiceTemplate {
  const metadata: unknown = template.metadata;
  return { ...template, metadata: { ...(isMapping(metadata) ? metadata : {}), compositionId } };
}
