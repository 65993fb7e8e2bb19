import type { JsonObject } from '@acm/domain';
import { DRIFT_MODE_FIELD, MAX_PARALLEL_ELEMENTS_FIELD, driftModeProblem, parallelismProblem } from '@acm/domain';
import { excerpt, shortText } from '@acm/input-guards';
import { nameProblem, versionProblem } from '@acm/tosca';
import type { InstanceRequest } from '../application/instantiation.service';
import { assertFiniteNumbers, invalid, isUuid, optionalObject, optionalText } from './request-parsing';

/**
 * Checks the shape of an AutomationComposition body and collects every problem with its field path.
 * Element ids may be given as map keys, in the element, or both (then they must agree).
 */
export function parseInstanceBody(body: unknown): InstanceRequest {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('body: must be an AutomationComposition object');
  }
  const input = body as Record<string, unknown>;
  const uuidField = (name: string, required: boolean): string | undefined => {
    const value = input[name];
    if (value === undefined || value === null) {
      if (required) {
        problems.push(`${name}: is required`);
      }
      return undefined;
    }
    if (!isUuid(value)) {
      problems.push(`${name}: must be a UUID, got ${excerpt(value)}`);
      return undefined;
    }
    return value.toLowerCase();
  };
  const compositionId = uuidField('compositionId', true);
  const instanceId = uuidField('instanceId', false);
  const compositionTargetId = uuidField('compositionTargetId', false);
  const nameRefusal = nameProblem(input['name']);
  if (nameRefusal !== undefined) {
    problems.push(`name: is required and ${nameRefusal}`);
  }
  const versionRefusal = versionProblem(input['version']);
  if (versionRefusal !== undefined) {
    problems.push(`version: is required and ${versionRefusal}`);
  }
  const precheck = input['precheck'];
  if (precheck !== undefined && precheck !== null && typeof precheck !== 'boolean') {
    problems.push('precheck: must be true or false');
  }
  const elements: Array<InstanceRequest['elements'][number]> = [];
  const rawElements = input['elements'];
  if (typeof rawElements !== 'object' || rawElements === null || Array.isArray(rawElements)) {
    problems.push('elements: is required and must be a map of element id to element');
  } else {
    for (const [key, raw] of Object.entries(rawElements as Record<string, unknown>)) {
      const path = `elements[${shortText(JSON.stringify(key))}]`;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        problems.push(`${path}: must be an object`);
        continue;
      }
      const element = raw as Record<string, unknown>;
      const id = element['id'] ?? key;
      if (!isUuid(id)) {
        problems.push(`${path}.id: must be a UUID, got ${excerpt(id)}`);
        continue;
      }
      if (isUuid(key) && id.toLowerCase() !== key.toLowerCase()) {
        problems.push(`${path}.id: ${excerpt(id)} differs from its map key`);
      }
      const definition = element['definition'];
      const definitionObject =
        typeof definition === 'object' && definition !== null && !Array.isArray(definition)
          ? (definition as Record<string, unknown>)
          : undefined;
      if (
        definitionObject === undefined ||
        typeof definitionObject['name'] !== 'string' ||
        typeof definitionObject['version'] !== 'string'
      ) {
        problems.push(`${path}.definition: must be {name, version} of an element node template`);
        continue;
      }
      const definitionRefusal =
        withField('name', nameProblem(definitionObject['name'])) ??
        withField('version', versionProblem(definitionObject['version']));
      if (definitionRefusal !== undefined) {
        problems.push(`${path}.definition.${definitionRefusal}`);
        continue;
      }
      try {
        const properties = optionalObject(`${path}.properties`, element['properties']) ?? {};
        assertFiniteNumbers(`${path}.properties`, properties);
        const count = element['count'];
        if (count !== undefined && count !== null && !Number.isSafeInteger(count)) {
          problems.push(`${path}.count: must be an integer, got ${excerpt(count)}`);
          continue;
        }
        elements.push({
          ...(typeof count === 'number' ? { count } : {}),
          id: id.toLowerCase(),
          definition: { name: definitionObject['name'], version: definitionObject['version'] },
          description: optionalText(`${path}.description`, element['description']),
          properties,
        });
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
  }
  let description: string | null = null;
  let derivedFrom: string | null = null;
  let metadata: JsonObject | null = null;
  try {
    description = optionalText('description', input['description']);
    derivedFrom = optionalText('derived_from', input['derived_from']);
    metadata = optionalObject('metadata', input['metadata']) ?? null;
    assertFiniteNumbers('metadata', metadata);
    const parallelism = parallelismProblem(metadata);
    if (parallelism !== null) {
      problems.push(`metadata.${MAX_PARALLEL_ELEMENTS_FIELD}: ${parallelism}`);
    }
    const drift = driftModeProblem(metadata?.[DRIFT_MODE_FIELD]);
    if (drift !== null) {
      problems.push(`metadata.${DRIFT_MODE_FIELD}: ${drift}`);
    }
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  if (problems.length > 0 || compositionId === undefined) {
    throw invalid(problems.join('\n'));
  }
  return {
    instanceId,
    compositionId,
    compositionTargetId,
    precheck: typeof precheck === 'boolean' ? precheck : undefined,
    name: input['name'] as string,
    version: input['version'] as string,
    description,
    derivedFrom,
    metadata,
    elements,
  };
}

function withField(field: string, problem: string | undefined): string | undefined {
  return problem === undefined ? undefined : `${field}: ${problem}`;
}
