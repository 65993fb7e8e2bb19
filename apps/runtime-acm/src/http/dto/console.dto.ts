import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Where the console signs in: the OpenID Connect provider and the console's public client there. */
export class ConsoleOidc {
  @ApiProperty({ example: 'https://id.example/realms/acm', description: 'OIDC_ISSUER' })
  issuer!: string;

  @ApiProperty({ example: 'acm-console', description: 'OIDC_CONSOLE_CLIENT_ID: a public client (PKCE, no secret)' })
  clientId!: string;

  @ApiProperty({ example: 'openid profile', description: 'OIDC_CONSOLE_SCOPES, space-separated' })
  scopes!: string;
}

/** How the console authenticates: through the provider (`oidc`), or by the browser's HTTP Basic (`oidc` null). */
export class ConsoleConfig {
  @ApiPropertyOptional({ type: ConsoleOidc, nullable: true, description: 'null: HTTP Basic' })
  oidc!: ConsoleOidc | null;
}
