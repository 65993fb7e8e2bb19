import fc from 'fast-check';
import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { completedStateOf, isOrderAllowed } from '../instance/instance-lifecycle';
import type { InstanceOperation } from '../ports/engine.port';
import { REVERSE_ORDER } from '../control/cancel';
import type { OperationEffect } from './effects';
import type { InputOf, InstanceInput, InstanceStep, InstanceStepContext } from './instance-operation';
import { INSTANCE_PASSES, decideInstance } from './instance-operation';
import type { ElementTemplate } from './topology';
import { isRefusal } from '../refusal';
import { P1, P2, T0, element, instanceOf, refusalOf, stepOf, template } from './testing/instance-fixtures';

/**
 * Properties of `decideInstance` itself, over generated compositions (phases, dependsOn, two participants, a
 * parallelism limit or none) and generated schedules of ACKs: answers, failures, duplicates, stale answers of an
 * operation that no longer runs, answers a participant gives for elements it does not own, lost answers, hand-overs.
 */

const PARTICIPANTS = [P1, P2] as const;
const DEADLINE_MS = 10_000;

interface Composition {
  readonly templates: ElementTemplate[];
  readonly elements: InstanceElement[];
  readonly maxParallelElements: number | null;
}

const compositionArbitrary: fc.Arbitrary<Composition> = fc
  .record({
    raw: fc.array(
      fc.record({
        phase: fc.integer({ min: 0, max: 2 }),
        participant: fc.nat(1),
        picks: fc.array(fc.nat(), { maxLength: 2 }),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    limit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  })
  .map(({ raw, limit }) => ({
    // Acyclic by construction: an element depends only on earlier ones of the same or an earlier phase.
    templates: raw.map((spec, index) =>
      template(
        `t${index}`,
        spec.phase,
        index === 0
          ? []
          : [...new Set(spec.picks.map((pick) => pick % index))]
              .filter((target) => raw[target]!.phase <= spec.phase)
              .map((target) => `t${target}`),
      ),
    ),
    elements: raw.map((spec, index) => element(`e${index}`, `t${index}`, PARTICIPANTS[spec.participant])),
    maxParallelElements: limit,
  }));

type Action = {
  readonly kind: 'answer' | 'fail' | 'duplicate' | 'stale' | 'foreign' | 'drop' | 'lost';
  readonly pick: number;
};

const actionArbitrary: fc.Arbitrary<Action> = fc.record({
  kind: fc.constantFrom('answer', 'answer', 'answer', 'fail', 'duplicate', 'stale', 'foreign', 'drop', 'lost'),
  pick: fc.nat(),
});

/** One dispatched element waiting for its participant's answer. */
interface Work {
  readonly elementId: string;
  readonly participantId: string;
  readonly operationId: string;
  readonly phase: number;
}

/** The instance, its operations as the store holds them, and what the participants were asked to do. */
class World {
  now = T0;
  readonly operations = new Map<string, InstanceOperation>();
  outstanding: Work[] = [];
  readonly answered: Array<InputOf<'ACK'>> = [];
  readonly dispatchedIn = new Map<string, Set<string>>();
  dropped = 0;

  constructor(
    public target: AutomationComposition,
    readonly context: InstanceStepContext,
  ) {}

  get running(): InstanceOperation | null {
    return [...this.operations.values()].find((operation) => operation.state === 'RUNNING') ?? null;
  }

  /** Decides one input at the next instant and keeps what the store and the participants would keep. */
  apply(input: InstanceInput): InstanceStep {
    this.now += 1;
    const step = stepOf(decideInstance(this.target, this.running, input, this.now, this.context));
    this.take(step);
    return step;
  }

  take(step: InstanceStep): void {
    this.target = step.target;
    for (const write of step.operations) {
      this.operations.set(write.operation.operationId, write.operation as InstanceOperation);
    }
    for (const effect of step.effects) {
      if (effect.kind !== 'SEND_PHASE' || effect.resentMessageId !== null || step.operation === null) {
        continue;
      }
      const key = `${step.operation.operationId}|${effect.phase}`;
      const sent = this.dispatchedIn.get(key) ?? new Set<string>();
      for (const elementId of effect.dispatched) {
        sent.add(elementId);
        const participantId = this.target.elements[elementId]?.participantId ?? '';
        this.outstanding.push({
          elementId,
          participantId,
          operationId: step.operation.operationId,
          phase: effect.phase,
        });
      }
      this.dispatchedIn.set(key, sent);
    }
  }

  /** The ACK a participant sends for a work item: the element's completed state, or its failure. */
  ackFor(work: Work, failed: boolean): InputOf<'ACK'> {
    const current = this.target.elements[work.elementId];
    const reached = current ? completedStateOf(current) : null;
    const operation = this.operations.get(work.operationId)!;
    const limited = this.context.maxParallelElements !== null;
    return {
      kind: 'ACK',
      ack: {
        participantId: work.participantId,
        replicaId: null,
        responseTo: `m-${work.operationId}-${work.phase}`,
        stateChangeResult: failed ? 'FAILED' : 'NO_ERROR',
        message: failed ? 'it broke' : null,
        stage: null,
        reports: [
          {
            elementId: work.elementId,
            deployState: failed ? 'UNDEPLOYED' : (reached?.deployState ?? 'DEPLOYED'),
            lockState: failed ? 'NONE' : (reached?.lockState ?? 'LOCKED'),
            result: !failed,
          },
        ],
      },
      answered: { operation, phase: work.phase },
      dispatched: limited ? new Set(this.dispatchedIn.get(`${operation.operationId}|${operation.phase}`) ?? []) : null,
    };
  }

  /** The same ACK again, its answered operation read again as the store holds it now. */
  again(input: InputOf<'ACK'>): InputOf<'ACK'> {
    const operation = input.answered === null ? null : this.operations.get(input.answered.operation.operationId);
    return { ...input, answered: operation ? { ...input.answered!, operation } : input.answered };
  }

  /** Answers every outstanding work item (not the dropped ones) until nothing is left to answer. */
  drain(): void {
    for (let round = 0; round < 500 && this.outstanding.length > 0; round += 1) {
      const [work] = this.outstanding.splice(0, 1);
      this.apply(this.ackFor(work!, false));
    }
  }
}

function contextOf(composition: Composition): InstanceStepContext {
  let next = 0;
  return {
    templates: { own: composition.templates, other: null },
    defaultTimeoutMs: DEADLINE_MS,
    maxParallelElements: composition.maxParallelElements,
    newId: () => `op-${++next}`,
  };
}

function deployed(elements: readonly InstanceElement[], lockState: 'LOCKED' | 'UNLOCKED'): AutomationComposition {
  const instance = instanceOf(elements.map((item) => ({ ...item, deployState: 'DEPLOYED' as const, lockState })));
  return { ...instance, deployState: 'DEPLOYED', lockState };
}

/** A world whose DEPLOY (or UNDEPLOY, from DEPLOYED) was ordered. */
function ordered(composition: Composition, order: 'DEPLOY' | 'UNDEPLOY'): World {
  const start = order === 'DEPLOY' ? instanceOf(composition.elements) : deployed(composition.elements, 'LOCKED');
  const world = new World(start, contextOf(composition));
  world.apply({ kind: 'ORDER', order });
  return world;
}

/** Runs one scheduled action; returns the input and the step when one was decided. */
function act(
  world: World,
  action: Action,
): { input: InstanceInput; before: AutomationComposition; step: InstanceStep } | null {
  const before = world.target;
  const pickFrom = <T>(items: readonly T[]): T | undefined => items[action.pick % Math.max(1, items.length)];
  let input: InstanceInput;
  switch (action.kind) {
    case 'answer':
    case 'fail': {
      const work = pickFrom(world.outstanding);
      if (work === undefined) {
        return null;
      }
      world.outstanding = world.outstanding.filter((item) => item !== work);
      input = world.ackFor(work, action.kind === 'fail');
      world.answered.push(input);
      break;
    }
    case 'duplicate': {
      const earlier = pickFrom(world.answered);
      if (earlier === undefined) {
        return null;
      }
      input = world.again(earlier);
      break;
    }
    case 'stale': {
      // An answer for an operation a newer order replaced: a copy of the operation under another id.
      const running = world.running;
      const work = pickFrom(world.outstanding);
      if (running === null || work === undefined) {
        return null;
      }
      const old: InstanceOperation = { ...running, operationId: `old-${running.operationId}`, state: 'SUPERSEDED' };
      input = { ...world.ackFor(work, false), answered: { operation: old, phase: work.phase } };
      break;
    }
    case 'foreign': {
      // A participant reports an element it does not own.
      const work = pickFrom(world.outstanding);
      if (work === undefined) {
        return null;
      }
      const other = PARTICIPANTS.find((participant) => participant !== work.participantId)!;
      const answer = world.ackFor(work, false);
      input = { ...answer, ack: { ...answer.ack, participantId: other } };
      break;
    }
    case 'drop': {
      const work = pickFrom(world.outstanding);
      if (work === undefined) {
        return null;
      }
      world.outstanding = world.outstanding.filter((item) => item !== work);
      world.dropped += 1;
      return null;
    }
    case 'lost':
      input = {
        kind: 'REPLICA_LOST',
        participantId: PARTICIPANTS[action.pick % 2]!,
        lost: { kind: 'ALL' },
        messages: [{ messageId: 'm-lost', answeredBy: [], covered: null }],
      };
      break;
  }
  return { input, before, step: world.apply(input) };
}

const ignoredOnly = (effects: readonly OperationEffect[]): boolean =>
  effects.every((effect) => effect.kind === 'IGNORE');

const scheduleArbitrary = fc.array(actionArbitrary, { maxLength: 40 });
const orderArbitrary = fc.constantFrom<'DEPLOY' | 'UNDEPLOY'>('DEPLOY', 'UNDEPLOY');

describe('decideInstance properties', () => {
  it('(a) the same ACK applied twice changes nothing the second time', () => {
    fc.assert(
      fc.property(
        compositionArbitrary,
        orderArbitrary,
        scheduleArbitrary,
        fc.nat(),
        fc.boolean(),
        (composition, order, schedule, pick, fail) => {
          const world = ordered(composition, order);
          schedule.forEach((action) => act(world, action));
          const work = world.outstanding[pick % Math.max(1, world.outstanding.length)];
          fc.pre(work !== undefined);
          const input = world.ackFor(work, fail);
          const first = world.apply(input);
          const second = stepOf(
            decideInstance(world.target, world.running, world.again(input), world.now + 1, world.context),
          );
          expect(second.target).toEqual(first.target);
          expect(second.operations).toEqual([]);
          expect(ignoredOnly(second.effects)).toBe(true);
        },
      ),
    );
  });

  it('(b) no effect names an element of another participant or another operation', () => {
    fc.assert(
      fc.property(compositionArbitrary, orderArbitrary, scheduleArbitrary, (composition, order, schedule) => {
        const world = ordered(composition, order);
        for (const action of schedule) {
          const running = world.running;
          const done = act(world, action);
          if (done === null) {
            continue;
          }
          const { input, before, step } = done;
          const ownerOf = (id: string): string | null | undefined => before.elements[id]?.participantId;
          if (input.kind === 'REPLICA_LOST') {
            for (const effect of step.effects) {
              if (effect.kind === 'SEND_PHASE') {
                expect(Object.values(effect.instance.elements).map((item) => item.participantId)).toEqual(
                  Object.values(effect.instance.elements).map(() => input.participantId),
                );
              }
            }
            continue;
          }
          if (input.kind !== 'ACK') {
            continue;
          }
          const answers = input.answered!.operation.operationId;
          if (running === null || answers !== running.operationId) {
            // The answer of an operation that is not the running one changes nothing of the running one's.
            expect(step.operations.filter((write) => write.operation.operationId !== answers)).toEqual([]);
          }
          if (input.answered!.operation.state === 'SUPERSEDED') {
            expect(ignoredOnly(step.effects)).toBe(true);
            expect(step.target).toBe(before);
          }
          // Only the answering participant's elements change, and only its elements have results recorded.
          for (const [id, item] of Object.entries(before.elements)) {
            if (item.participantId !== input.ack.participantId && !step.removed) {
              expect(step.target.elements[id]).toEqual(item);
            }
          }
          for (const effect of step.effects) {
            if (effect.kind === 'RECORD_EVENT' && effect.event === 'ELEMENT_RESULT') {
              expect(ownerOf(String(effect.detail['elementId']))).toBe(input.ack.participantId);
            }
            if (effect.kind === 'RECORD_EVENT' && effect.operationId !== undefined) {
              expect(effect.operationId).toBe(answers);
            }
          }
        }
      }),
    );
  });

  it('(c) every schedule of ACKs, duplicates and stale ACKs ends COMPLETED, FAILED or TIMEOUT', () => {
    fc.assert(
      fc.property(compositionArbitrary, orderArbitrary, scheduleArbitrary, (composition, order, schedule) => {
        const world = ordered(composition, order);
        const first = [...world.operations.keys()][0]!;
        schedule.forEach((action) => act(world, action));
        world.drain();
        const running = world.running;
        if (running !== null) {
          // Only a lost answer leaves the operation running once every other answer is in: the deadline ends it.
          expect(world.dropped).toBeGreaterThan(0);
          world.now = running.deadlineAt;
          world.apply({ kind: 'TICK' });
        }
        const end = world.operations.get(first)!;
        expect(end.state === 'COMPLETED' || end.state === 'FAILED' || (end.state === 'RUNNING' && end.timedOut)).toBe(
          true,
        );
        expect(world.target.stateChangeResult === 'NO_ERROR').toBe(end.state === 'COMPLETED');
      }),
    );
  });

  it('(d) paused time never counts against a deadline', () => {
    const pauses = fc.array(
      fc.record({ activeBefore: fc.integer({ min: 0, max: 2_000 }), pausedFor: fc.integer({ min: 1, max: 50_000 }) }),
      { maxLength: 4 },
    );
    fc.assert(
      fc.property(compositionArbitrary, pauses, (composition, schedule) => {
        const world = ordered(composition, 'DEPLOY');
        const timedOut = (): boolean => world.running?.timedOut ?? false;
        let pausedMs = 0;
        for (const { activeBefore, pausedFor } of schedule) {
          world.now += activeBefore;
          world.apply({ kind: 'TICK' });
          world.apply({ kind: 'PAUSE' });
          const pausedAt = world.now;
          // Well past the deadline the operation had when it paused: a paused operation never times out.
          world.now += DEADLINE_MS + pausedFor;
          world.apply({ kind: 'TICK' });
          expect(timedOut()).toBe(false);
          const running = world.running!;
          world.apply({
            kind: 'RESUME',
            dispatched: world.dispatchedIn.get(`${running.operationId}|${running.phase}`) ?? new Set(),
          });
          pausedMs += world.now - pausedAt;
        }
        expect(timedOut()).toBe(false);
        // The deadline of the order (decided at T0 + 1) moved by exactly the time spent paused.
        const deadlineAt = T0 + 1 + DEADLINE_MS + pausedMs;
        world.now = deadlineAt - 1;
        world.apply({ kind: 'TICK' });
        expect(timedOut()).toBe(false);
        world.apply({ kind: 'TICK' });
        expect(timedOut()).toBe(true);
      }),
    );
  });

  it('(e) a cancel leaves a state from which the opposite order is allowed, and that order runs to completion', () => {
    const orders = fc.constantFrom<InstanceOrder>('DEPLOY', 'UNDEPLOY', 'LOCK', 'UNLOCK');
    fc.assert(
      fc.property(
        compositionArbitrary,
        orders,
        fc.array(fc.nat(), { maxLength: 10 }),
        (composition, order, answers) => {
          const start =
            order === 'DEPLOY'
              ? instanceOf(composition.elements)
              : deployed(composition.elements, order === 'LOCK' ? 'UNLOCKED' : 'LOCKED');
          const world = new World(start, contextOf(composition));
          world.apply({ kind: 'ORDER', order });
          for (const pick of answers) {
            const work = world.outstanding[pick % Math.max(1, world.outstanding.length)];
            if (work !== undefined) {
              world.outstanding = world.outstanding.filter((item) => item !== work);
              world.apply(world.ackFor(work, false));
            }
          }
          const cancel: InstanceInput = { kind: 'CANCEL', rollback: false, dispatched: new Set() };
          if (world.running === null) {
            // Nothing left to cancel: the request is refused, nothing changes.
            expect(refusalOf(decideInstance(world.target, null, cancel, world.now, world.context)).code).toBe(
              'NOTHING_RUNNING',
            );
            return;
          }
          world.apply(cancel);
          world.outstanding = [];
          const opposite = REVERSE_ORDER[order]!;
          expect(isOrderAllowed(opposite, world.target)).toBe(true);
          world.apply({ kind: 'ORDER', order: opposite });
          world.drain();
          expect(world.running).toBeNull();
          expect(world.target.stateChangeResult).toBe('NO_ERROR');
        },
      ),
    );
  });

  it('each pass leaves alone the steps of the inputs its table entry does not list', () => {
    fc.assert(
      fc.property(compositionArbitrary, scheduleArbitrary, (composition, schedule) => {
        const world = ordered(composition, 'DEPLOY');
        schedule.slice(0, 10).forEach((action) => act(world, action));
        // A runtime-wide limit, so that accountSlots has something to count.
        const context = { ...world.context, runtimeSlots: 5 };
        const running = world.running;
        const inputs: InstanceInput[] = [
          { kind: 'TICK' },
          { kind: 'PAUSE' },
          { kind: 'SUPERVISE', messages: [], retrying: [], reported: new Set() },
          {
            kind: 'REPLICA_LOST',
            participantId: P1,
            lost: { kind: 'ALL' },
            messages: [{ messageId: 'm', answeredBy: [], covered: null }],
          },
        ];
        for (const input of inputs) {
          const decided = decideInstance(world.target, running, input, world.now + 1, context);
          if (isRefusal(decided)) {
            continue;
          }
          for (const pass of INSTANCE_PASSES.filter((entry) => !entry.changes.includes(input.kind))) {
            expect(pass.run(decided, running, input, world.now + 1, context)).toEqual(decided);
          }
        }
      }),
    );
  });
});
