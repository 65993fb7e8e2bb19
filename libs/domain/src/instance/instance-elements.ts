import { DomainError } from '../errors';
import type { ConceptId } from '../model';

/** What an instance body says about one element before the runtime fills in states. */
export interface RequestedElement {
  readonly id: string;
  readonly definition: ConceptId;
}

/**
 * ONAP's instance-versus-composition checks: the instance lists each element of the
 * composition's `elements` property exactly once, by node-template name and version. All mismatches
 * are reported together so one round trip fixes the body.
 */
export function validateInstanceElements(
  compositionElements: readonly ConceptId[],
  requested: readonly RequestedElement[],
): void {
  const problems: string[] = [];
  const byName = new Map(compositionElements.map((element) => [element.name, element.version]));
  const seen = new Map<string, string>();
  for (const element of requested) {
    const path = `elements["${element.id}"].definition`;
    const expectedVersion = byName.get(element.definition.name);
    if (expectedVersion === undefined) {
      problems.push(`${path}: ${element.definition.name} ${element.definition.version} Not found in the composition`);
      continue;
    }
    if (expectedVersion !== element.definition.version) {
      problems.push(
        `${path}: ${element.definition.name} Version not matching: expected ${expectedVersion}, got ${element.definition.version}`,
      );
    }
    const previous = seen.get(element.definition.name);
    if (previous !== undefined) {
      problems.push(`${path}: ${element.definition.name} is already used by element ${previous}`);
    }
    seen.set(element.definition.name, element.id);
  }
  if (problems.length === 0 && requested.length !== compositionElements.length) {
    const missing = compositionElements.filter((element) => !seen.has(element.name)).map((element) => element.name);
    problems.push(
      `elements: Elements of the instance not matching with the elements of the composition: ` +
        `expected ${compositionElements.length}, got ${requested.length}` +
        (missing.length > 0 ? `; missing ${missing.join(', ')}` : ''),
    );
  }
  if (problems.length > 0) {
    throw new DomainError('VALIDATION_FAILED', problems.join('\n'), { problems });
  }
}
