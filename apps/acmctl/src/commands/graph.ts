import { Option } from 'commander';
import type { Command } from 'commander';
import { graphQuery } from '../instance-view';
import type { CommandContext } from './context';
import { compositionPath, instancePath } from './context';

/** `acmctl graph`: a definition's or instance's element graph. */
export function registerGraph(program: Command, { cli, connect }: CommandContext): void {
  program
    .command('graph <composition> [instance]')
    .description("a definition's (or instance's) element graph by start phase, with dependsOn edges")
    .addOption(new Option('--format <format>', 'graph format').choices(['dot', 'mermaid', 'json']).default('dot'))
    .option('--depth <levels>', "an instance's nested compositions to expand into their child instances' elements")
    .action(
      async (
        composition: string,
        instance: string | undefined,
        options: { format: string; depth?: string },
        command: Command,
      ) => {
        const base = instance === undefined ? compositionPath(composition) : instancePath(composition, instance);
        const answer = (
          await connect(command).request(
            'GET',
            `${base}/graph?${graphQuery(options.format, options.depth)}`,
            undefined,
            '*/*',
          )
        ).body;
        cli.out(typeof answer === 'string' ? answer.trimEnd() : JSON.stringify(answer, null, 2));
      },
    );
}
