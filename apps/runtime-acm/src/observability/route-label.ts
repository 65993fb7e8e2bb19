/** How a request's route is named the same way in metrics, traces and request logs. */

/**
 * Spring's rule (DefaultServerRequestObservationConvention): the matched pattern (`root` when empty); without one,
 * `REDIRECTION` for a 3xx, `NOT_FOUND` for a 404, else `UNKNOWN` (so a 401 refused before routing is `UNKNOWN`).
 */
export function uriLabel(routePath: string | undefined, status: number, contextPath: string): string {
  if (routePath === undefined) {
    if (status >= 300 && status < 400) {
      return 'REDIRECTION';
    }
    return status === 404 ? 'NOT_FOUND' : 'UNKNOWN';
  }
  const relative =
    routePath === contextPath || routePath.startsWith(`${contextPath}/`)
      ? routePath.slice(contextPath.length)
      : routePath;
  const template = relative.replace(/:([A-Za-z_$][\w$]*)/g, '{$1}');
  return template === '' || template === '/' ? 'root' : template;
}
