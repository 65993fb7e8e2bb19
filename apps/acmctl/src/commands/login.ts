import { AcmClient } from '../client';
import type { Connection } from '../connection';
import { profilePath, resolveConnection, writeProfile } from '../connection';
import { deviceLogin } from '../device-login';
import { AcmctlError, EXIT } from '../exit-codes';
import type { Command } from 'commander';
import type { CommandContext } from './context';

interface LoginOptions {
  device?: boolean;
  issuer?: string;
  clientId: string;
  scope: string;
}

/** `acmctl login`: checks the connection and saves it as the profile; `--device` signs in at the OpenID provider. */
export function registerLogin(program: Command, { cli, globals }: CommandContext): void {
  program
    .command('login')
    .description('check the connection and save it as the profile; --device signs in at the OpenID provider')
    .option('--device', 'sign in at the OpenID Connect provider with the device flow (RFC 8628) and save the token')
    .option('--issuer <url>', "the provider's issuer URL (default: the one the runtime's console uses)")
    .option('--client-id <id>', "acmctl's public client at the provider", 'acmctl')
    .option('--scope <scopes>', 'the scopes to ask for, space-separated', 'openid')
    .action(async (options: LoginOptions, command: Command) => {
      const resolved: Connection = resolveConnection(globals(command), cli.env);
      const path = profilePath(cli.env);
      if (!options.device) {
        await new AcmClient(resolved).get('/compositions');
        writeProfile(path, resolved);
        cli.out(`logged in to ${resolved.url} as ${resolved.user}; profile ${path}`);
        return;
      }
      const issuer = options.issuer ?? (await consoleIssuer(new AcmClient(resolved)));
      const { accessToken } = await deviceLogin({
        issuer,
        clientId: options.clientId,
        scope: options.scope,
        prompt: ({ uri, uriComplete, userCode }) =>
          cli.out(
            uriComplete === null
              ? `To sign in, open ${uri} and enter the code ${userCode}`
              : `To sign in, open ${uriComplete} (or ${uri} and enter the code ${userCode})`,
          ),
      });
      const connection: Connection = { ...resolved, token: accessToken };
      await new AcmClient(connection).get('/compositions');
      // The token replaces any password: the profile keeps the URL and the token only.
      writeProfile(path, { url: connection.url, token: accessToken });
      cli.out(`logged in to ${connection.url} with a token of ${issuer}; profile ${path}`);
    });
}

/** The issuer the runtime tells its console to sign in at (`v2/console/config`), which needs no credentials. */
async function consoleIssuer(client: AcmClient): Promise<string> {
  const answer = (await client.get('/console/config')) as { oidc?: { issuer?: unknown } | null } | null;
  const issuer = answer?.oidc?.issuer;
  if (typeof issuer !== 'string') {
    throw new AcmctlError(
      EXIT.USAGE,
      `the runtime at ${client.connection.url} names no OpenID provider for sign-in (OIDC_CONSOLE_CLIENT_ID unset): give --issuer`,
    );
  }
  return issuer;
}
