import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DefinitionInput, InstanceInput, OperationEffect } from '@acm/domain';
import { HISTORY_EVENT_KINDS } from '@acm/domain';

const ARCHITECTURE = readFileSync(join(__dirname, '..', 'docs', 'architecture.md'), 'utf8').replace(/\s+/g, ' ');

/**
 * Every kind of each union, once. The unions are types only: a kind added to one fails to compile here until it is
 * listed (`satisfies` refuses a missing and an unknown key), and then the checks below fail until the docs list it.
 */
const INSTANCE_INPUTS = {
  ORDER: true,
  ACK: true,
  TICK: true,
  CANCEL: true,
  PAUSE: true,
  SLOTS: true,
  RESUME: true,
  SUPERVISE: true,
  REPLICA_LOST: true,
  SIGNAL: true,
  CHILD_ENDED: true,
} satisfies Record<InstanceInput['kind'], true>;

const DEFINITION_INPUTS = {
  ORDER: true,
  ACK: true,
  TICK: true,
  SUPERVISE: true,
} satisfies Record<DefinitionInput['kind'], true>;

const EFFECTS = {
  SEND_PHASE: true,
  SEND_PRIME: true,
  SYNC_INSTANCE: true,
  SYNC_DEFINITION: true,
  RECORD_EVENT: true,
  RECORD_ANSWER: true,
  COUNT_FINISHED: true,
  COUNT_CONTROL: true,
  COUNT_SIGNAL: true,
  REQUEST_STATUS: true,
  IGNORE: true,
} satisfies Record<OperationEffect['kind'], true>;

/** The backticked upper-case names from `opening` to the next `end` (line breaks read as spaces). */
function listedAfter(opening: string, end = ')'): string[] {
  const start = ARCHITECTURE.indexOf(opening);
  expect(start).toBeGreaterThanOrEqual(0);
  const from = start + opening.length;
  const list = ARCHITECTURE.slice(from, ARCHITECTURE.indexOf(end, from));
  return [...list.matchAll(/`([A-Z][A-Z_]+)`/g)].map((match) => match[1]!).sort();
}

const sorted = (kinds: object): string[] => Object.keys(kinds).sort();

describe('docs/architecture.md against the domain unions', () => {
  it('lists every input of decideInstance, and no other', () => {
    expect(listedAfter('`decideInstance` (inputs ')).toEqual(sorted(INSTANCE_INPUTS));
  });

  it('lists every input of decideDefinition, and no other', () => {
    expect(listedAfter('`decideDefinition` (inputs ')).toEqual(sorted(DEFINITION_INPUTS));
  });

  it('lists every effect, and no other', () => {
    expect(listedAfter('Effects are data (')).toEqual(sorted(EFFECTS));
  });

  it('lists every history event kind, and no other', () => {
    expect(
      listedAfter('The kinds (`test/history-kinds-doc.spec.ts` keeps this list equal to the union):', '. '),
    ).toEqual([...HISTORY_EVENT_KINDS].sort());
  });
});
