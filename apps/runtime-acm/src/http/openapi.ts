import { applyDecorators } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
  DocumentBuilder,
  getSchemaPath,
  SwaggerModule,
} from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { REQUEST_HEADER } from './cross-site-guard';
import { SimpleResponse } from './dto/errors.dto';
import { ONAP_API_VERSION, productVersion } from '../config/product-version';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type ParameterObject = Extract<NonNullable<Operation['parameters']>[number], { in: string }>;

/**
 * The OpenAPI document is generated from the controllers' decorators and the DTO classes, nothing else: these
 * helpers keep each route's description to a few lines (docs/architecture.md, "Adding a route").
 */

/** The media types ONAP's runtime reads and answers; the body parser and the response interceptor do both. */
export const BODY_TYPES = ['application/json', 'application/yaml'] as const;

export const TAGS = {
  definition: {
    name: 'Automation Composition Definition',
    description: 'Commission, prime, deprime and delete automation composition definitions (TOSCA service templates)',
  },
  instance: {
    name: 'Automation Composition Instance',
    description: 'Create, update, migrate, deploy, lock and delete automation composition instances',
  },
  participant: {
    name: 'Participant Monitoring',
    description: 'The participants that registered, what they serve, and status or sync requests to them',
  },
  history: { name: 'History', description: 'Beyond ONAP: who ordered what, each phase and each element result' },
  graph: { name: 'Graph', description: 'Beyond ONAP: the dependency graph of a composition and of an instance' },
  plan: { name: 'Plan', description: 'Beyond ONAP: the steps an order would run, before it is given' },
  control: {
    name: 'Control',
    description: 'Beyond ONAP: cancel, pause and resume running work, and what the running operation waits for',
  },
  rollout: {
    name: 'Rollout',
    description: 'Beyond ONAP: one order given to many instances in batches, with a failure threshold',
  },
  notification: {
    name: 'Notification',
    description: 'Beyond ONAP: webhooks told of history events, signed, retried, dead-lettered after the last attempt',
  },
  window: {
    name: 'Maintenance Window',
    description: 'Beyond ONAP: when orders may change instances (cron, duration, time zone; allow or deny)',
  },
  approval: {
    name: 'Approval',
    description: 'Beyond ONAP: orders that wait for approvals by other users before they run (approval policies)',
  },
  actuator: { name: 'Actuator', description: "Probes at ONAP's actuator paths" },
  console: { name: 'Console', description: 'Beyond ONAP: what the web console needs before it signs in' },
} as const;

type Tag = (typeof TAGS)[keyof typeof TAGS];

/** What each refusal means; every one answers ONAP's SimpleResponse as JSON. */
const REFUSALS = {
  400: 'Bad Request: a path, query or body field broke a rule; errorDetails names each one',
  401: 'Unauthorized: HTTP Basic credentials (or, with OIDC_ISSUER set, a bearer token) missing or wrong; errorDetails names which check failed',
  403: "Forbidden: the caller's role (RUNTIME_POLICY_FILE) does not include the role this needs, which errorDetails names; or the token of a signed URL does not grant this element, or has expired",
  404: 'Not Found: no such definition, instance or participant',
  409: 'Conflict: a participant it needs is off line, a concurrent change won, or an order waits for approvals (errorDetails names it)',
  413: 'Payload Too Large: the body is over MAX_BODY_BYTES',
  415: 'Unsupported Media Type: send application/json or application/yaml',
  429: 'Too Many Requests: a limit of open streams is reached; retry after Retry-After seconds',
  503: 'Service Unavailable: the database does not answer in time or lacks a resource; errorDetails names the cause; retry after Retry-After seconds',
  507: "Insufficient Storage: the database's disk is full, nothing was changed; retry after Retry-After seconds",
} as const;

export type RefusalStatus = keyof typeof REFUSALS;

/** The refusals a route can answer besides those every route can (401, 503, 507). */
export function ApiRefusals(...statuses: RefusalStatus[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: REFUSALS[status],
        content: { 'application/json': { schema: { $ref: getSchemaPath(SimpleResponse) } } },
      }),
    ),
  );
}

/** A controller of the v2 API: its tag, HTTP Basic or a bearer token, and the refusals any route may answer. */
export function ApiController(tag: Tag): ClassDecorator {
  return applyDecorators(
    ApiTags(tag.name),
    ApiBasicAuth(),
    ApiBearerAuth(),
    ApiExtraModels(SimpleResponse),
    ApiRefusals(401, 403, 503, 507),
  );
}

/** A request body in JSON or YAML, refused with 400, 413 or 415 when it cannot be read. */
export function ApiJsonOrYamlBody(
  type: new () => object,
  description: string,
  examples: Record<string, { summary: string; value: unknown }>,
): MethodDecorator {
  return applyDecorators(
    ApiConsumes(...BODY_TYPES),
    ApiBody({ type, description, required: true, examples }),
    ApiRefusals(400, 413, 415),
  );
}

/** A path parameter that must be a UUID (400 otherwise). */
export function ApiUuidParam(name: string, description: string): MethodDecorator {
  return ApiParam({ name, description, schema: { type: 'string', format: 'uuid' } });
}

/** ONAP's paging: both or neither. */
export function ApiPaging(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      description: 'Zero-based page number; applies only with size',
      schema: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    }),
    ApiQuery({
      name: 'size',
      required: false,
      description: 'Page size; applies only with page',
      schema: { type: 'integer', minimum: 1, maximum: 10_000 },
    }),
  );
}

/** `showSensitive=true` asks for sensitive properties in clear, granted only by configuration. */
export function ApiShowSensitive(): MethodDecorator {
  return ApiQuery({
    name: 'showSensitive',
    required: false,
    description: 'true: sensitive properties in clear, when SHOW_SENSITIVE allows it (masked otherwise)',
    schema: { type: 'boolean', default: false },
  });
}

const REQUEST_ID: ParameterObject = {
  name: 'X-ONAP-RequestID',
  in: 'header',
  required: false,
  description: 'Request id for tracing; answered back in the response header of the same name (a new one if absent)',
  schema: { type: 'string', format: 'uuid' },
};

/** Lets a POST without a body through from a web page: a page of another site cannot send it (cross-site-guard.ts). */
const CROSS_SITE_HEADER: ParameterObject = {
  name: REQUEST_HEADER,
  in: 'header',
  required: false,
  description:
    'Needed only by a web page (a request with Origin or Sec-Fetch-Site of another site) that sends this POST with ' +
    'no body and no Content-Type; curl, Postman and ONAP clients send nothing of the sort',
  schema: { type: 'string', enum: ['1'] },
  example: '1',
};

/** ONAP's response headers, on every answer (http/request-headers.ts sets them). */
const RESPONSE_HEADERS = {
  'X-LatestVersion': { description: 'Latest API version', schema: { type: 'string', example: '1.0.0' } },
  'X-MinorVersion': { description: 'API minor version', schema: { type: 'string', example: '0' } },
  'X-PatchVersion': { description: 'API patch version', schema: { type: 'string', example: '0' } },
  'X-ONAP-RequestID': { description: 'The request id', schema: { type: 'string', format: 'uuid' } },
};

/** Builds the document the runtime serves at /v3/api-docs; paths are relative to the server, as in ONAP's. */
export function openApiDocument(app: INestApplication, contextPath: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('ACM runtime')
    .setDescription(
      `acm-runtime ${productVersion()}, implementing ONAP CLAMP ACM API ${ONAP_API_VERSION}. ` +
        'Automation composition runtime, wire-compatible with the v2 API of ONAP CLAMP ACM. Bodies are JSON or YAML ' +
        '(Content-Type), answers JSON or YAML (Accept). Orders answer 202 and run in the background: poll the ' +
        'definition or instance until its state and stateChangeResult say it is done.',
    )
    .setVersion(ONAP_API_VERSION)
    .setLicense('Apache 2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer(`/${contextPath}`, 'This runtime')
    .addBasicAuth()
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'An access token of the OpenID Connect provider of OIDC_ISSUER (accepted only when it is set)',
    });
  for (const tag of Object.values(TAGS)) {
    builder.addTag(tag.name, tag.description);
  }
  const document = SwaggerModule.createDocument(app, builder.build(), { ignoreGlobalPrefix: true });
  document.components = { ...document.components, headers: RESPONSE_HEADERS };
  const operationIds = new Set<string>();
  for (const [route, path] of Object.entries(document.paths)) {
    for (const operation of [path.get, path.put, path.post, path.delete]) {
      if (operation === undefined) {
        continue;
      }
      // A route served at two paths (/actuator/health and /health) is one method: the alias gets an id of its own.
      if (operation.operationId !== undefined && operationIds.has(operation.operationId)) {
        operation.operationId = `${operation.operationId}At${route.replace(/[^A-Za-z0-9]+(.)?/g, (_, next?: string) => (next ?? '').toUpperCase())}`;
      }
      operationIds.add(operation.operationId ?? '');
      operation.parameters = [...(operation.parameters ?? []), REQUEST_ID];
      if (operation === path.post && operation.requestBody === undefined) {
        operation.parameters.push(CROSS_SITE_HEADER);
        operation.responses['415'] = {
          description: `Unsupported Media Type: a Content-Type other than JSON or YAML, or a page of another site without ${REQUEST_HEADER}`,
          content: { 'application/json': { schema: { $ref: getSchemaPath(SimpleResponse) } } },
        };
      }
      for (const response of Object.values(operation.responses)) {
        if (response === undefined || '$ref' in response) {
          continue;
        }
        // The response interceptor answers any object body in YAML to a client that prefers it.
        const json = response.content?.['application/json'];
        if (json !== undefined && response.content?.['application/yaml'] === undefined && !isRefusal(response)) {
          response.content = { ...response.content, 'application/yaml': json };
        }
        response.headers = Object.fromEntries(
          Object.keys(RESPONSE_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
        );
      }
    }
  }
  collapseLoneAllOf(document.components.schemas);
  return document;
}

function isRefusal(response: { content?: Record<string, { schema?: unknown }> }): boolean {
  const schema = response.content?.['application/json']?.schema;
  return (
    typeof schema === 'object' && schema !== null && '$ref' in schema && schema.$ref === getSchemaPath(SimpleResponse)
  );
}

/**
 * The generator wraps every enum reference in a one-entry `allOf`; without a sibling keyword (readOnly,
 * description) the reference alone says the same, and linters ask for it.
 */
function collapseLoneAllOf(node: unknown): void {
  if (typeof node !== 'object' || node === null) {
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (isLoneAllOf(value)) {
      (node as Record<string, unknown>)[key] = value.allOf[0];
    } else {
      collapseLoneAllOf(value);
    }
  }
}

function isLoneAllOf(value: unknown): value is { allOf: [unknown] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    'allOf' in value &&
    Array.isArray(value.allOf) &&
    value.allOf.length === 1
  );
}
