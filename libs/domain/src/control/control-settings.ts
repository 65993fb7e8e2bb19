import { DomainError } from '../errors';
import type { SettingProblem } from './resend-schedule';
import { DEFAULT_RESEND_SETTINGS, resendSettingsOf } from './resend-schedule';
import { parseRetryPolicy } from './retry-policy';

/**
 * The control settings a definition's metadata or an instance's metadata may carry (`maxWaitMs`,
 * `maxRetryCount`, `retryPolicy`), checked where they enter: a negative or absurd value is a 400 that names
 * the field and the rule, never a surprise at run time.
 */
export function controlSettingProblems(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
  prefix: string,
): SettingProblem[] {
  if (metadata === null || metadata === undefined) {
    return [];
  }
  return [
    ...resendSettingsOf(metadata, DEFAULT_RESEND_SETTINGS, prefix).problems,
    ...parseRetryPolicy(metadata['retryPolicy'], `${prefix}.retryPolicy`).problems,
  ];
}

export function assertControlSettings(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
  prefix: string,
): void {
  const problems = controlSettingProblems(metadata, prefix);
  if (problems.length > 0) {
    throw new DomainError(
      'VALIDATION_FAILED',
      problems.map((problem) => `${problem.field}: ${problem.rule}`).join('\n'),
      { problems },
    );
  }
}
