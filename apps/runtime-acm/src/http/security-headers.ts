import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { HelmetOptions } from 'helmet';

type Directives = NonNullable<Exclude<HelmetOptions['contentSecurityPolicy'], boolean | undefined>['directives']>;

/** What every page the runtime serves may do: its own scripts and data only, never inside another site's frame. */
const PAGE: Directives = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/**
 * The headers of one kind of answer. HSTS is left to the TLS proxy in front (the runtime serves plain HTTP), and
 * X-Frame-Options says DENY as frame-ancestors does, for browsers that only know the older header.
 */
const headers = (directives: Directives) =>
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives },
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
  });

/**
 * Content-Security-Policy, X-Frame-Options, X-Content-Type-Options and helmet's other defaults on every answer:
 * - the console (Vite's build: module scripts and a stylesheet, no inline code): PAGE as it is;
 * - Swagger UI: PAGE plus inline styles (its page has `<style>` blocks and `style` attributes; its scripts are files);
 * - everything else (JSON, YAML, event streams): nothing may load, a document answered by the API runs nothing.
 */
export function securityHeaders(
  pages: { readonly console: string; readonly swaggerUi: string },
  // The provider's URL when the console signs in there: its page fetches the provider's discovery document and token
  // endpoint, so connect-src names that origin too, and nothing else.
  consoleIssuer: string | null = null,
) {
  const consolePage = headers(
    consoleIssuer === null ? PAGE : { ...PAGE, connectSrc: ["'self'", new URL(consoleIssuer).origin] },
  );
  const swaggerPage = headers({ ...PAGE, styleSrc: ["'self'", "'unsafe-inline'"] });
  const api = headers({ defaultSrc: ["'none'"], frameAncestors: ["'none'"] });
  return (request: Request, response: Response, next: NextFunction): void => {
    const path = request.path;
    if (path.startsWith(pages.console)) {
      consolePage(request, response, next);
    } else if (path.startsWith(pages.swaggerUi)) {
      swaggerPage(request, response, next);
    } else {
      api(request, response, next);
    }
  };
}
