import type { Server } from 'node:http';
import { answerClientError } from '@acm/input-guards';
import { Logger } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DestinationStream } from 'pino';
import type { Request, Response } from 'express';
import { SwaggerModule } from '@nestjs/swagger';
import type { RuntimeConfig } from './config/runtime.config';
import type { Database } from './database/database';
import type { EmbeddedPostgres } from './database/embedded-postgres';
import { openDatabase } from './database/database';
import { AccessRefusals } from './application/access-refusals.service';
import { CommissioningService } from './application/commissioning.service';
import { isUuid } from './http/request-parsing';
import type { Refusal } from './application/access-refusals.service';
import { principalOf } from './security/principal';
import { accessGuard } from './http/access-guard';
import type { AccessScope } from './http/access-guard';
import { SubscriptionsService } from './application/subscriptions.service';
import { RolloutService } from './application/rollout.service';
import { windowOverrideGuard } from './http/window-override-guard';
import { basicAuth, isSignedSignal } from './http/basic-auth';
import { CONSOLE_PATH, consoleDirectory } from './http/console-assets';
import { CONSOLE_CONFIG_PATH } from './http/console.controller';
import { bodyParser } from './http/body-parsing';
import { REQUEST_HEADER, crossSiteGuard } from './http/cross-site-guard';
import { ErrorFilter } from './http/error.filter';
import type { RouteRefusal } from './http/error.filter';
import { openApiDocument } from './http/openapi';
import { RuntimeMetrics } from './metrics/runtime-metrics';
import { requestHeaders } from './http/request-headers';
import { securityHeaders } from './http/security-headers';
import { ResponseFormatInterceptor } from './http/response-format.interceptor';
import { urlCheck } from './http/url-check';
import { EmbeddedSimulator } from './messaging/embedded-simulator';
import { createLogger, PinoNestLogger } from './observability/logging';
import { activateRequestSpan, startRequestSpan } from './observability/http-traces';
import { requestContext, requestLog } from './observability/request-log';
import { RuntimeModule } from './runtime.module';
import { OidcBearerVerifier } from './security/bearer-tokens';

/** ONAP's servlet context path; controllers add /v2/... under it. */
export const CONTEXT_PATH = 'onap/policy/clamp/acm';

/** Where Swagger UI is served (ONAP's path). */
const SWAGGER_UI_PATH = `${CONTEXT_PATH}/swagger-ui`;

/** How long an idle keep-alive connection stays open (Node's default is 5 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Paths answered without credentials: the probes and the console's sign-in settings always, the metrics when
 * METRICS_AUTH is false.
 */
export function openPaths(config: RuntimeConfig): ReadonlySet<string> {
  const paths = ['actuator/health/liveness', 'actuator/health/readiness', CONSOLE_CONFIG_PATH];
  if (!config.metricsAuth) {
    paths.push('actuator/prometheus', 'metrics');
  }
  return new Set(paths.map((path) => `/${CONTEXT_PATH}/${path}`));
}

export interface RuntimeApp {
  readonly app: INestApplication;
  readonly database: Database;
}

/** Builds the whole runtime (used by main and by the tests), without listening. */
export interface RuntimeAppOptions {
  readonly schema?: string;
  /** Where the log lines go instead of standard output (tests read them). */
  readonly logDestination?: DestinationStream;
  /**
   * The embedded PostgreSQL, already starting (main starts it before it loads the rest of the runtime); used only
   * when no DATABASE_URL is set. Without it openDatabase starts one itself.
   */
  readonly embeddedPostgres?: Promise<EmbeddedPostgres>;
}

/** Milliseconds, to a tenth, for the start-up line. */
const tenths = (ms: number): number => Math.round(ms * 10) / 10;

export async function createRuntimeApp(config: RuntimeConfig, options: RuntimeAppOptions = {}): Promise<RuntimeApp> {
  const started = performance.now();
  const logger = createLogger({
    level: config.logLevel,
    format: config.logFormat,
    traceIds: config.tracing !== null,
    ...(options.logDestination === undefined ? {} : { destination: options.logDestination }),
  });
  const nestLogger = new PinoNestLogger(logger);
  // Before the database opens: it logs through Nest's Logger before the application exists.
  Logger.overrideLogger(nestLogger);
  const database = await openDatabase(
    config,
    options.schema ?? config.databaseSchema ?? undefined,
    options.embeddedPostgres,
  );
  const databaseOpen = performance.now();
  const app = await NestFactory.create<NestExpressApplication>(RuntimeModule.forRoot({ config, database, logger }), {
    bodyParser: false,
    logger: nestLogger,
  });
  const nestCreated = performance.now();
  app.disable('x-powered-by');
  const server: Server = app.getHttpServer();
  server.on('clientError', answerClientError);
  // Node closes an idle keep-alive connection after 5 s, about as long as a client waits between two calls while
  // it watches a deploy; a client that reuses the connection just as it closes gets ECONNRESET on its next request.
  // A minute, as load balancers use, keeps that race away from scripts and SDKs that pool connections.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  if (config.corsOrigins.length > 0) {
    // First, so a preflight is answered before authentication (a browser never sends credentials with one).
    app.enableCors({
      origin: [...config.corsOrigins],
      credentials: true,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['Authorization', 'Accept', 'Content-Type', 'X-ONAP-RequestID', REQUEST_HEADER],
      exposedHeaders: ['X-ONAP-RequestID', 'X-LatestVersion', 'X-MinorVersion', 'X-PatchVersion', 'Retry-After'],
      maxAge: 600,
    });
  }
  app.use(requestHeaders(logger));
  app.use(
    securityHeaders(
      { console: `/${CONTEXT_PATH}/${CONSOLE_PATH}`, swaggerUi: `/${SWAGGER_UI_PATH}` },
      config.consoleLogin?.issuer ?? null,
    ),
  );
  if (config.tracing !== null) {
    app.use(startRequestSpan(`/${CONTEXT_PATH}`));
  }
  app.use(requestLog(logger, `/${CONTEXT_PATH}`));
  app.use(app.get(RuntimeMetrics).middleware(`/${CONTEXT_PATH}`));
  const refusals = app.get(AccessRefusals);
  const onRefused = (
    request: Request,
    response: Response,
    refusal: Pick<Refusal, 'status' | 'reason' | 'user'>,
  ): void => {
    const requestId = response.getHeader('X-ONAP-RequestID');
    void refusals.record({
      ...refusal,
      method: request.method,
      path: request.path,
      source: request.socket.remoteAddress ?? null,
      requestId: typeof requestId === 'string' ? requestId : null,
    });
  };
  // A signed URL's token is checked by its route: a refusal there has no user (the URL is the credential).
  const routeRefusals = (request: Request, response: Response, refusal: RouteRefusal): void =>
    onRefused(request, response, { ...refusal, user: principalOf(response)?.user ?? null });
  const consoleFiles = consoleDirectory();
  const serveConsole = (): void => {
    if (consoleFiles !== null) {
      app.useStaticAssets(consoleFiles, { prefix: `/${CONTEXT_PATH}/${CONSOLE_PATH}`, index: 'index.html' });
    }
  };
  if (config.consoleLogin !== null) {
    // The console signs in through the provider: its files (code, no data) load before it has a token. Their URLs
    // are checked first, as every other URL is.
    app.use(`/${CONTEXT_PATH}/${CONSOLE_PATH}`, urlCheck);
    serveConsole();
  }
  if (config.basicAuth) {
    app.use(
      basicAuth(config.user, config.password, openPaths(config), isSignedSignal, config.users, {
        bearer: config.oidc === null ? null : new OidcBearerVerifier(config.oidc),
        onRefused,
      }),
    );
    const commissioning = app.get(CommissioningService);
    const projectOf = (compositionId: string): Promise<string | null> =>
      isUuid(compositionId) ? commissioning.projectOf(compositionId.toLowerCase()) : Promise.resolve(null);
    const rollouts = app.get(RolloutService);
    const rolloutProjectOf = async (rolloutId: string): Promise<string | null> => {
      const compositionId = isUuid(rolloutId) ? await rollouts.compositionOf(rolloutId.toLowerCase()) : null;
      return compositionId === null ? null : commissioning.projectOf(compositionId);
    };
    const subscriptions = app.get(SubscriptionsService);
    const subscriptionScopeOf = async (subscriptionId: string): Promise<AccessScope> => {
      const compositionId = isUuid(subscriptionId)
        ? await subscriptions.compositionOf(subscriptionId.toLowerCase())
        : undefined;
      if (compositionId === undefined) {
        return { kind: 'some' }; // unknown: 404 to whoever may read something
      }
      const project = compositionId === null ? null : await projectOf(compositionId);
      return project === null ? { kind: 'every' } : { kind: 'project', project };
    };
    app.use(
      accessGuard(config.policy, `/${CONTEXT_PATH}`, projectOf, onRefused, rolloutProjectOf, subscriptionScopeOf),
    );
    app.use(windowOverrideGuard(config.policy, `/${CONTEXT_PATH}`, onRefused));
  }
  app.use(urlCheck);
  if (config.consoleLogin === null) {
    // Behind the same Basic auth as the API: the browser asks once and sends the credentials with every call.
    serveConsole();
  }
  app.use(crossSiteGuard(new Set(config.corsOrigins)));
  app.use(bodyParser(config.maxBodyBytes));
  app.use(requestContext);
  if (config.tracing !== null) {
    app.use(activateRequestSpan);
  }
  app.use(app.get(EmbeddedSimulator).middleware());
  app.setGlobalPrefix(CONTEXT_PATH);
  app.useGlobalFilters(new ErrorFilter(routeRefusals));
  app.useGlobalInterceptors(new ResponseFormatInterceptor());
  // Built on its first request, not at boot: scanning every route's metadata is a tenth of a second or more of
  // start-up that no other request needs.
  SwaggerModule.setup(SWAGGER_UI_PATH, app, () => openApiDocument(app, CONTEXT_PATH), {
    jsonDocumentUrl: `${CONTEXT_PATH}/v3/api-docs`,
    yamlDocumentUrl: `${CONTEXT_PATH}/v3/api-docs.yaml`,
  });
  // Where a start's time goes (LOG_LEVEL=debug), for profiling the start-up without a profiler; the time before
  // `started` is Node's own start and the loading of the modules.
  logger.debug(
    {
      modulesLoadedAtMs: tenths(started),
      databaseMs: tenths(databaseOpen - started),
      nestMs: tenths(nestCreated - databaseOpen),
      httpSetupMs: tenths(performance.now() - nestCreated),
    },
    'Start-up steps',
  );
  return { app, database };
}
