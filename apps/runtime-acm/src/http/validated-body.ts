import { excerpt } from '@acm/input-guards';
import type { ValidationArguments } from 'class-validator';
import { validateSync } from 'class-validator';
import { asObject, invalid } from './request-parsing';

/** The refusal text of a value outside its vocabulary, word for word as the hand-written parsers say it. */
export function notOneOf(vocabulary: readonly string[]): (args: ValidationArguments) => string {
  return (args) => `${args.property}: ${excerpt(args.value)} is not one of ${vocabulary.join(', ')}`;
}

/**
 * Checks a body against the class-validator rules of its DTO class, the class that also describes it in the OpenAPI
 * document; every broken rule is one line of the 400's errorDetails, in the order the class declares its fields.
 */
export function validatedBody<T extends object>(type: new () => T, body: unknown): T {
  const value = Object.assign(new type(), asObject('body', body));
  const problems = validateSync(value).flatMap((error) => Object.values(error.constraints ?? {}));
  if (problems.length > 0) {
    throw invalid(problems.join('\n'));
  }
  return value;
}
