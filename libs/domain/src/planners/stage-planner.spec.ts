import type { InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { decideNextPhase } from './phase-planner';
import type { StageSets } from './stage-planner';
import { isStagedOrder, nextStage, stagePhaseOf } from './stage-planner';

function element(id: string, stage: number | null, deployState: InstanceElement['deployState']): InstanceElement {
  return {
    id,
    definition: { name: id, version: '1.0.0' },
    participantId: 'p',
    deployState,
    lockState: 'LOCKED',
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties: {},
    outProperties: {},
  };
}

const SETS: Record<string, StageSets> = {
  a: { prepare: [0, 1], migrate: [0, 1] },
  b: { prepare: [0], migrate: [1, 2] },
  c: { prepare: [2], migrate: [0, 2] },
};
const setsOf = (e: InstanceElement): StageSets => SETS[e.id] ?? { prepare: [0], migrate: [0] };

describe(isStagedOrder.name, () => {
  it.each<[InstanceOrder, boolean]>([
    ['MIGRATE', true],
    ['MIGRATION_REVERT', true],
    ['PREPARE', true],
    ['DEPLOY', false],
    ['UPDATE', false],
    ['MIGRATE_PRECHECK', false],
    ['REVIEW', false],
  ])('%s staged: %s', (order, staged) => {
    expect(isStagedOrder(order)).toBe(staged);
  });
});

describe(stagePhaseOf.name, () => {
  it.each<[InstanceOrder, string, number | null, number]>([
    ['MIGRATE', 'a', null, 0],
    ['MIGRATE', 'b', null, 1],
    ['MIGRATE', 'b', 2, 2],
    ['MIGRATION_REVERT', 'a', null, 1],
    ['MIGRATION_REVERT', 'c', null, 2],
    ['MIGRATION_REVERT', 'c', 0, 0],
    ['PREPARE', 'c', null, 2],
    ['PREPARE', 'x', null, 0],
  ])('%s: element %s reported %s is at stage %s', (order, id, reported, expected) => {
    expect(stagePhaseOf(order, setsOf)(element(id, reported, 'MIGRATING'))).toBe(expected);
  });
});

describe(nextStage.name, () => {
  it.each<[InstanceOrder, string, number, number]>([
    ['MIGRATE', 'b', 1, 2],
    ['MIGRATE', 'b', 2, 2],
    ['MIGRATION_REVERT', 'b', 2, 1],
    ['MIGRATION_REVERT', 'b', 1, 1],
    ['PREPARE', 'a', 0, 1],
  ])('%s: after stage %s of %s comes %s', (order, id, current, expected) => {
    expect(nextStage(order, SETS[id]!, current)).toBe(expected);
  });
});

describe('stage walk with decideNextPhase', () => {
  it.each<[string, InstanceOrder, Record<string, InstanceElement>, number, string]>([
    [
      'migrate waits while an element of the open stage is pending',
      'MIGRATE',
      { a: element('a', null, 'MIGRATING'), b: element('b', null, 'MIGRATING') },
      0,
      'WAIT',
    ],
    [
      'migrate opens the lowest reported stage',
      'MIGRATE',
      { a: element('a', 1, 'MIGRATING'), b: element('b', null, 'MIGRATING'), c: element('c', 2, 'MIGRATING') },
      0,
      'ADVANCE 1',
    ],
    [
      'rollback opens the highest remaining stage',
      'MIGRATION_REVERT',
      { a: element('a', null, 'MIGRATION_REVERTING'), c: element('c', 0, 'MIGRATION_REVERTING') },
      2,
      'ADVANCE 1',
    ],
    ['all done completes', 'MIGRATE', { a: element('a', 1, 'DEPLOYED') }, 1, 'COMPLETE'],
  ])('%s', (_label, order, elements, open, expected) => {
    const decision = decideNextPhase(order, open, elements, stagePhaseOf(order, setsOf));
    expect(decision.kind === 'ADVANCE' ? `ADVANCE ${decision.phase}` : decision.kind).toBe(expected);
  });
});
