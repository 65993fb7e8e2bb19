import type { Request, Response } from 'express';
import { securityHeaders } from './security-headers';

const PAGES = { console: '/acm/console', swaggerUi: '/acm/swagger-ui' };

/** The Content-Security-Policy the middleware sets for a path. */
async function policyOf(middleware: ReturnType<typeof securityHeaders>, path: string): Promise<string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = value;
    },
    removeHeader: () => undefined,
  } as unknown as Response;
  const failures: unknown[] = [];
  await new Promise<void>((resolve) =>
    middleware({ path, method: 'GET', headers: {} } as Request, response, (error?: unknown) => {
      if (error !== undefined) {
        failures.push(error);
      }
      resolve();
    }),
  );
  expect(failures).toEqual([]);
  return headers['content-security-policy'] ?? '';
}

describe('securityHeaders', () => {
  it("lets the console's page connect to its own origin only without a console sign-in", async () => {
    const policy = await policyOf(securityHeaders(PAGES), '/acm/console/');
    expect(policy).toContain("connect-src 'self';");
  });

  it("adds the provider's origin, and nothing else, to the console's connect-src when it signs in there", async () => {
    const middleware = securityHeaders(PAGES, 'https://id.example:8443/realms/acm');
    expect(await policyOf(middleware, '/acm/console/')).toContain("connect-src 'self' https://id.example:8443;");
    expect(await policyOf(middleware, '/acm/v2/compositions')).toBe("default-src 'none';frame-ancestors 'none'");
  });
});
