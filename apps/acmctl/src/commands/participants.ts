import type { TableView } from '../output';
import { field, text } from '../output';
import type { Command } from 'commander';
import type { CommandContext } from './context';

const participantsTable = (body: unknown): TableView => ({
  headers: ['PARTICIPANT', 'ELEMENT TYPES', 'REPLICAS'],
  rows: (Array.isArray(body) ? body : [body]).map((entry) => {
    const participant = field(entry, 'participant');
    const values = (value: unknown): unknown[] => Object.values((value ?? {}) as Record<string, unknown>);
    return [
      text(field(participant, 'participantId')),
      values(field(participant, 'participantSupportedElementTypes'))
        .map((type) => `${text(field(type, 'typeName'))}:${text(field(type, 'typeVersion'))}`)
        .join(', '),
      values(field(participant, 'replicas'))
        .map((replica) => text(field(replica, 'participantState')))
        .join(', '),
    ];
  }),
});

/** `acmctl participants`: the participants and their element types. */
export function registerParticipants(program: Command, { connect, print }: CommandContext): void {
  program
    .command('participants [participant]')
    .description('the participants and the element types they serve')
    .action(async (participant: string | undefined, _options: unknown, command: Command) => {
      const path = participant === undefined ? '/participants' : `/participants/${encodeURIComponent(participant)}`;
      print(command, await connect(command).get(path), participantsTable);
    });
}
