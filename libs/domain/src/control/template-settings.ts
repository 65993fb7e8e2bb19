import { DomainError } from '../errors';

/** One problem of a node template's settings: the field under the template, and the rule it breaks. */
export interface TemplateSettingProblem {
  readonly field: string;
  readonly rule: string;
}

/**
 * Refuses (VALIDATION_FAILED, 400) node templates whose settings have problems, each named by its template and field;
 * does nothing when there are none.
 */
export function refuseTemplateSettingProblems(
  templates: ReadonlyArray<{ readonly name: string; readonly problems: readonly TemplateSettingProblem[] }>,
): void {
  const problems = templates.flatMap(({ name, problems: own }) =>
    own.map((problem) => ({ field: `topology_template.node_templates.${name}.${problem.field}`, rule: problem.rule })),
  );
  if (problems.length > 0) {
    throw new DomainError(
      'VALIDATION_FAILED',
      problems.map((problem) => `${problem.field}: ${problem.rule}`).join('\n'),
      { problems },
    );
  }
}
