import { isUuid } from '@acm/contracts';
import { SIM_OPERATIONS } from './sim-config';
import type { SimOperation } from './sim-config';
import type { InstanceFailures } from './simulator-handler';

/** The operations a `PUT /failures` entry may name: those run for one instance (priming is per composition). */
const INSTANCE_OPERATIONS = SIM_OPERATIONS.filter((operation) => operation !== 'prime' && operation !== 'deprime');

export type InstanceFailuresParse = { ok: true; failures: InstanceFailures } | { ok: false; problems: string[] };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a `PUT /failures` body, `{"instances": [{"instanceId": UUID, "operations": ["deploy", ...]}]}`; an empty list
 * clears every failure. Every problem names its field and the rule.
 */
export function parseInstanceFailures(body: unknown): InstanceFailuresParse {
  if (!isObject(body) || !Array.isArray(body['instances'])) {
    return { ok: false, problems: ['instances: is required, an array of {"instanceId": UUID, "operations": [...]}'] };
  }
  const problems: string[] = [];
  const instances: InstanceFailures['instances'] = [];
  body['instances'].forEach((entry: unknown, index) => {
    const at = `instances[${index}]`;
    if (!isObject(entry)) {
      problems.push(`${at}: must be an object {"instanceId": UUID, "operations": [...]}`);
      return;
    }
    const instanceId = entry['instanceId'];
    if (typeof instanceId !== 'string' || !isUuid(instanceId)) {
      problems.push(`${at}.instanceId: must be a UUID, got ${JSON.stringify(instanceId)}`);
    }
    const operations = entry['operations'];
    const known: SimOperation[] = [];
    if (!Array.isArray(operations) || operations.length === 0) {
      problems.push(`${at}.operations: must be a non-empty array of ${INSTANCE_OPERATIONS.join(', ')}`);
    } else {
      operations.forEach((operation: unknown, position) => {
        const match = INSTANCE_OPERATIONS.find((candidate) => candidate === operation);
        if (match === undefined) {
          problems.push(
            `${at}.operations[${position}]: ${JSON.stringify(operation)} is not one of ${INSTANCE_OPERATIONS.join(', ')}`,
          );
        } else if (!known.includes(match)) {
          known.push(match);
        }
      });
    }
    if (typeof instanceId === 'string' && isUuid(instanceId)) {
      instances.push({ instanceId: instanceId.toLowerCase(), operations: known });
    }
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, failures: { instances } };
}
