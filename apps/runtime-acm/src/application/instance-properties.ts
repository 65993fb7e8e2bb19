import type { CompositionDefinition, JsonObject, Store } from '@acm/domain';
import { Clock, DomainError, requestedBy } from '@acm/domain';
import type { ToscaProblem } from '@acm/tosca';
import { formatProblems, resolveElementProperties } from '@acm/tosca';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { requestActor } from '../observability/request-context';

/** An element whose properties are checked: its id, its node template and the properties it would store. */
export interface PropertiesOfElement {
  readonly id: string;
  readonly definition: { readonly name: string };
  readonly properties: JsonObject;
}

/** The properties to store for each element id, and the problems `warn` accepted. */
export interface CheckedProperties {
  readonly properties: ReadonlyMap<string, JsonObject>;
  readonly problems: readonly ToscaProblem[];
}

/**
 * Applies PROPERTY_VALIDATION to the element properties of a create, update or migration: `strict` refuses the
 * request with every problem, `warn` accepts it and reports the problems, `off` stores the properties as sent.
 */
@Injectable()
export class InstanceProperties {
  private readonly logger = new Logger('PropertyValidation');

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly clock: Clock,
  ) {}

  check(definition: CompositionDefinition, elements: readonly PropertiesOfElement[]): CheckedProperties {
    if (this.config.propertyValidation === 'off') {
      return { properties: new Map(elements.map((element) => [element.id, element.properties])), problems: [] };
    }
    const problems: ToscaProblem[] = [];
    const properties = new Map<string, JsonObject>();
    for (const element of elements) {
      const resolved = resolveElementProperties(definition.serviceTemplate, {
        nodeTemplateName: element.definition.name,
        properties: element.properties,
        path: ['elements', element.id, 'properties'],
      });
      problems.push(...resolved.problems);
      properties.set(element.id, resolved.properties);
    }
    if (problems.length > 0 && this.config.propertyValidation === 'strict') {
      throw new DomainError('VALIDATION_FAILED', formatProblems(problems), { problems });
    }
    return { properties, problems };
  }

  /** Writes the problems `warn` accepted to the instance's history and to the log. */
  async report(store: Store, instanceId: string, order: string, problems: readonly ToscaProblem[]): Promise<void> {
    if (problems.length === 0) {
      return;
    }
    this.logger.warn(
      `instance ${instanceId}: ${order} accepted with ${problems.length} property problem(s) ` +
        `(PROPERTY_VALIDATION=warn):\n${formatProblems(problems)}`,
    );
    await store.events.append([
      {
        subjectId: instanceId,
        operationId: null,
        event: 'PROPERTY_PROBLEMS',
        detail: { order, mode: 'warn', problems: problems.map((found) => ({ ...found })) },
        actor: requestedBy(requestActor()),
        at: this.clock.now(),
      },
    ]);
  }
}
