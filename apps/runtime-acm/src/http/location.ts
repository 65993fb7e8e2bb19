import type { Request } from 'express';

/** The absolute URL of a resource created under the request's path (ONAP's Location header). */
export function locationOf(request: Request, id: string): string {
  const path = request.originalUrl.split('?')[0]?.replace(/\/+$/, '') ?? '';
  return `${request.protocol}://${request.get('host') ?? 'localhost'}${path}/${id}`;
}
