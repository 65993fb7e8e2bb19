import type { DeployState, LockState } from '../states';
import type { InstanceElement } from '../model';
import { dependencyWaits, describedAtPhaseStart, newlyReady, readyInPhase } from './dependency-planner';

function element(name: string, deployState: DeployState, lockState: LockState = 'NONE'): InstanceElement {
  return {
    id: `id-${name}`,
    definition: { name, version: '1.0.0' },
    participantId: name === 'Frontend' ? 'P2' : 'P1',
    deployState,
    lockState,
    subState: 'NONE',
    migrationState: 'DEFAULT',
    stage: null,
    operationalState: null,
    useState: null,
    description: null,
    message: null,
    properties: {},
    outProperties: {},
  };
}

/** A diamond in phase 0 (Database -> {Api, Worker} -> Frontend), and Later alone in phase 1. */
const DEPENDS_ON: Record<string, string[]> = {
  Api: ['Database'],
  Worker: ['Database'],
  Frontend: ['Api', 'Worker'],
};
const dependsOnOf = (name: string): string[] => DEPENDS_ON[name] ?? [];
const PHASE: Record<string, number> = { Later: 1 };
const startPhaseOf = (e: InstanceElement): number => PHASE[e.definition.name] ?? 0;
const NAMES = ['Database', 'Api', 'Worker', 'Frontend', 'Later'];

function instanceWith(states: Record<string, DeployState>): Record<string, InstanceElement> {
  return Object.fromEntries(NAMES.map((name) => [`id-${name}`, element(name, states[name] ?? 'DEPLOYING')]));
}

const names = (elements: readonly InstanceElement[]): string[] => elements.map((e) => e.definition.name).sort();

describe(dependencyWaits.name, () => {
  it('waits for the dependencies going forwards (deploy, unlock)', () => {
    for (const order of ['DEPLOY', 'UNLOCK'] as const) {
      const waits = dependencyWaits(order, instanceWith({}), dependsOnOf);
      expect(waits.get('id-Frontend')).toEqual(['id-Api', 'id-Worker']);
      expect(waits.get('id-Api')).toEqual(['id-Database']);
      expect(waits.get('id-Database')).toBeUndefined();
    }
  });

  it('waits for the dependents going backwards (undeploy, lock, delete)', () => {
    for (const order of ['UNDEPLOY', 'LOCK', 'DELETE'] as const) {
      const waits = dependencyWaits(order, instanceWith({}), dependsOnOf);
      expect(waits.get('id-Database')).toEqual(['id-Api', 'id-Worker']);
      expect(waits.get('id-Api')).toEqual(['id-Frontend']);
      expect(waits.get('id-Frontend')).toBeUndefined();
    }
  });

  it.each(['UPDATE', 'MIGRATE', 'PREPARE', 'REVIEW', 'MIGRATE_PRECHECK', 'UPDATE_REVERT'] as const)(
    'leaves %s to phases and stages alone',
    (order) => {
      expect(dependencyWaits(order, instanceWith({}), dependsOnOf).size).toBe(0);
    },
  );
});

describe('dispatch in dependency order (deploy of the diamond)', () => {
  const waits = dependencyWaits('DEPLOY', instanceWith({}), dependsOnOf);

  it('starts the phase with the elements that wait for nothing, and describes the later phases as before', () => {
    const start = instanceWith({});
    expect(names(readyInPhase(start, 0, startPhaseOf, waits))).toEqual(['Database']);
    expect([...describedAtPhaseStart(start, 0, startPhaseOf, waits)].sort()).toEqual(['id-Database', 'id-Later']);
  });

  it('sets Api and Worker going together when Database is done, Frontend only after both', () => {
    const start = instanceWith({});
    const databaseDone = instanceWith({ Database: 'DEPLOYED' });
    expect(names(newlyReady(start, databaseDone, 0, startPhaseOf, waits))).toEqual(['Api', 'Worker']);

    const apiDone = instanceWith({ Database: 'DEPLOYED', Api: 'DEPLOYED' });
    expect(newlyReady(databaseDone, apiDone, 0, startPhaseOf, waits)).toEqual([]);

    const bothDone = instanceWith({ Database: 'DEPLOYED', Api: 'DEPLOYED', Worker: 'DEPLOYED' });
    expect(names(newlyReady(apiDone, bothDone, 0, startPhaseOf, waits))).toEqual(['Frontend']);
  });

  it('never sets an element going twice: an ACK that unblocks nothing new dispatches nothing', () => {
    const databaseDone = instanceWith({ Database: 'DEPLOYED' });
    expect(newlyReady(databaseDone, databaseDone, 0, startPhaseOf, waits)).toEqual([]);
  });

  it('a retry starts where the failed attempt stopped: done elements count as reached', () => {
    const retried = instanceWith({ Database: 'DEPLOYED', Api: 'DEPLOYED' });
    expect(names(readyInPhase(retried, 0, startPhaseOf, waits))).toEqual(['Worker']);
  });
});

describe('dispatch in reverse dependency order (undeploy of the diamond)', () => {
  const deployed = instanceWith(Object.fromEntries(NAMES.map((name) => [name, 'UNDEPLOYING'])));
  const waits = dependencyWaits('UNDEPLOY', deployed, dependsOnOf);

  it('stops Frontend first, then Api and Worker together, Database last', () => {
    expect(names(readyInPhase(deployed, 0, startPhaseOf, waits))).toEqual(['Frontend']);
    const frontendDone = { ...deployed, 'id-Frontend': element('Frontend', 'UNDEPLOYED') };
    expect(names(newlyReady(deployed, frontendDone, 0, startPhaseOf, waits))).toEqual(['Api', 'Worker']);
    const middleDone = {
      ...frontendDone,
      'id-Api': element('Api', 'UNDEPLOYED'),
      'id-Worker': element('Worker', 'UNDEPLOYED'),
    };
    expect(names(newlyReady(frontendDone, middleDone, 0, startPhaseOf, waits))).toEqual(['Database']);
  });
});

describe('a composition without dependencies', () => {
  it('dispatches every element of the phase at once, exactly as phases alone do', () => {
    const start = instanceWith({});
    const waits = dependencyWaits('DEPLOY', start, () => []);
    expect(names(readyInPhase(start, 0, startPhaseOf, waits))).toEqual(['Api', 'Database', 'Frontend', 'Worker']);
    expect(describedAtPhaseStart(start, 0, startPhaseOf, waits).size).toBe(NAMES.length);
  });
});
