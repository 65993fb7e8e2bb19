import type { Response } from 'express';

/** Who a request is, once authenticated: the user (Basic) or the token's subject (bearer), and its groups. */
export interface Principal {
  readonly user: string;
  /** The groups of the token's groups claim (OIDC_GROUPS_CLAIM); empty for Basic. */
  readonly groups: readonly string[];
  readonly scheme: 'basic' | 'bearer';
}

const PRINCIPAL = 'acmPrincipal';

export function setPrincipal(response: Response, principal: Principal): void {
  (response.locals as Record<string, unknown>)[PRINCIPAL] = principal;
}

/** The principal authentication granted, or undefined (a probe, a signed URL, authentication off). */
export function principalOf(response: Response): Principal | undefined {
  return (response.locals as Record<string, unknown> | undefined)?.[PRINCIPAL] as Principal | undefined;
}
