import { AcmctlError, EXIT } from '../exit-codes';
import type { Command } from 'commander';
import type { CommandContext } from './context';

/** `acmctl completion`: bash and zsh completion scripts. */
export function registerCompletion(program: Command, { cli }: CommandContext): void {
  program
    .command('completion [shell]')
    .description('print a completion script for bash (default) or zsh: source <(acmctl completion bash)')
    .action((shell: string | undefined) => {
      if (shell !== undefined && shell !== 'bash' && shell !== 'zsh') {
        throw new AcmctlError(EXIT.USAGE, `completion: shell must be bash or zsh, got "${shell}"`);
      }
      const script = bashCompletion(program);
      // zsh runs the bash function through its bash completion layer.
      cli.out(shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${script}` : script);
    });
}

/** A bash completion script for the command tree: sub-commands, then the options of the command typed. */
export function bashCompletion(program: Command): string {
  const cases = program.commands.map((command) => {
    const words = [...command.commands.map((sub) => sub.name()), ...command.options.map((option) => option.long ?? '')];
    return `    ${command.name()}) words="${words.filter(Boolean).join(' ')}" ;;`;
  });
  const top = [
    ...program.commands.map((command) => command.name()),
    ...program.options.map((option) => option.long ?? ''),
  ];
  return [
    '_acmctl() {',
    '  local current="${COMP_WORDS[COMP_CWORD]}" words',
    '  case "${COMP_WORDS[1]}" in',
    ...cases,
    `    *) words="${top.filter(Boolean).join(' ')}" ;;`,
    '  esac',
    '  [ "$COMP_CWORD" -eq 1 ] && words="' + top.filter(Boolean).join(' ') + '"',
    '  COMPREPLY=($(compgen -W "$words" -- "$current"))',
    '}',
    'complete -F _acmctl acmctl',
  ].join('\n');
}
