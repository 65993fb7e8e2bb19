import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { RuntimeConfig } from '../config/runtime.config';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import { ConsoleConfig } from './dto/console.dto';
import { ApiController, TAGS } from './openapi';

/** Where the web console path is answered: what it needs before it can authenticate. */
export const CONSOLE_CONFIG_PATH = 'v2/console/config';

/** Beyond ONAP: the console's sign-in settings, answered without credentials (they hold no secret). */
@ApiController(TAGS.console)
@Controller()
export class ConsoleController {
  constructor(@Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig) {}

  @Get(CONSOLE_CONFIG_PATH)
  @ApiOperation({
    operationId: 'consoleConfig',
    summary: 'How the web console signs in: the OpenID Connect provider and client, or null for HTTP Basic',
    description: 'Needs no credentials: the console reads it before it signs in. Holds no secret (a public client).',
  })
  @ApiOkResponse({ type: ConsoleConfig, description: 'The provider and client, or oidc null (HTTP Basic)' })
  consoleConfig(): ConsoleConfig {
    const login = this.config.consoleLogin;
    return { oidc: login === null ? null : { issuer: login.issuer, clientId: login.clientId, scopes: login.scopes } };
  }
}
