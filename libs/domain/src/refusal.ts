import type { DomainErrorCode } from './errors';
import { DomainError } from './errors';

/**
 * A request the state does not allow (cancel with nothing running, a signal for no wait, ...): nothing changes.
 * The shell answers it as the DomainError of the same code and message (`refusalError`).
 */
export interface Refusal {
  readonly refused: true;
  readonly code: DomainErrorCode;
  readonly message: string;
  /** Machine-readable context (state, order, what is allowed now) for diagnostics and logs. */
  readonly details: Readonly<Record<string, unknown>>;
}

export function refusal(code: DomainErrorCode, message: string, details: Readonly<Record<string, unknown>>): Refusal {
  return { refused: true, code, message, details };
}

export function isRefusal<T extends object>(decision: T | Refusal): decision is Refusal {
  return 'refused' in decision;
}

/** The error a shell throws for a refusal: the same code, message and details the request is answered with. */
export function refusalError(refused: Refusal): DomainError {
  return new DomainError(refused.code, refused.message, refused.details);
}
