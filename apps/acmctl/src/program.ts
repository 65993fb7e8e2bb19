import { Command, Option } from 'commander';
import { registerApprovals } from './commands/approvals';
import { registerCompletion } from './commands/completion';
import type { CliEnvironment } from './commands/context';
import { commandContext } from './commands/context';
import { registerDefinitions } from './commands/definitions';
import { registerDocs } from './commands/docs';
import { registerGraph } from './commands/graph';
import { registerHistory } from './commands/history';
import { registerInstances } from './commands/instances';
import { registerLogin } from './commands/login';
import { registerParticipants } from './commands/participants';
import { registerPlan } from './commands/plan';
import { registerRollouts } from './commands/rollouts';
import { registerWindows } from './commands/windows';
import { OUTPUT_FORMATS } from './output';
import { productVersion } from './version';

export type { CliEnvironment } from './commands/context';

/**
 * `acmctl --version` (or `-V`) first on the command line. Not commander's own version flag: a program option is
 * recognised after a sub-command too, so it would answer `definitions list --version 1.0.0` with acmctl's version.
 */
export function versionAsked(args: readonly string[]): boolean {
  return args[0] === '--version' || args[0] === '-V';
}

export { productVersion };

const EXAMPLES = `
acmctl --version (or -V), first on the line, prints acmctl's version, the runtime package's.

Examples:
  $ acmctl login --url http://localhost:6969 --user runtimeUser --password 'zb!XztG34'
  $ acmctl login --url https://acm.example --device --scope 'openid acm'
  $ acmctl definitions commission tosca/examples/sim-three-phase.yaml
  $ acmctl definitions prime COMPOSITION --wait
  $ acmctl instances create tosca/examples/instances/sim-three-phase.json --composition COMPOSITION
  $ acmctl instances deploy COMPOSITION INSTANCE --wait
  $ acmctl instances list --deploy-state DEPLOYED -o yaml
  $ acmctl history COMPOSITION INSTANCE --timeline
  $ acmctl history export --file history.ndjson
  $ acmctl plan COMPOSITION INSTANCE --order UNDEPLOY
  $ acmctl graph COMPOSITION --format mermaid
  $ acmctl rollouts create rollout.yaml --dry-run
  $ acmctl rollouts watch ROLLOUT
  $ acmctl approvals approve APPROVAL
  $ acmctl docs COMPOSITION --html > composition.html
  $ source <(acmctl completion bash)

Connection: --url/--user/--password (or --token), else ACM_URL/ACM_USER/ACM_PASSWORD (ACM_TOKEN), else the profile written by
"acmctl login" (with --device: a token of the OpenID provider), else ONAP's defaults. Exit codes: 0 done, 1 bad input, 2 FAILED, 3 TIMEOUT, 4 refused by the
runtime, 5 runtime unreachable, 6 wrong credentials, 7 runtime error.`;

export function buildProgram(cli: CliEnvironment): Command {
  const program = new Command('acmctl')
    .description('Drive an ONAP ACM compatible runtime: definitions, instances, their operations and history.')
    .option('--url <url>', 'runtime base URL (ACM_URL)')
    .option('--user <user>', 'HTTP Basic user (ACM_USER)')
    .option('--password <password>', 'HTTP Basic password (ACM_PASSWORD)')
    .option('--token <token>', 'bearer token of the OpenID Connect provider, sent instead of Basic (ACM_TOKEN)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .option('--timeout <ms>', 'how long --wait waits', '300000')
    .showHelpAfterError()
    .addHelpText('after', EXAMPLES)
    .exitOverride();

  const context = commandContext(cli);
  registerLogin(program, context);
  registerDefinitions(program, context);
  registerInstances(program, context);
  registerGraph(program, context);
  registerHistory(program, context);
  registerParticipants(program, context);
  registerPlan(program, context);
  registerRollouts(program, context);
  registerApprovals(program, context);
  registerWindows(program, context);
  registerDocs(program, context);
  registerCompletion(program, context);
  return program;
}
