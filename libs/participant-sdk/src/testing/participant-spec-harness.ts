/**
 * The harness the SDK's own Participant specs share: a participant on the in-memory bus with manual
 * timers, a scripted runtime, jest-mocked handlers and a two-element composition. Not exported from the
 * testing entry point: it is the SDK's test fixture, not a helper for participant authors.
 */
import { InMemoryMessageBus } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import type {
  Composition,
  CompositionContext,
  CompositionOutcome,
  ElementContext,
  ElementHandler,
  ElementOutcome,
  MigrationContext,
  ParticipantOptions,
  PrepareContext,
  UpdateContext,
} from '@acm/participant-sdk';

import type { TestElement } from './orders';
import { primeOrder } from './orders';
import { ManualTimers, ScriptedRuntime } from './scripted-runtime';

export const P = '101c62b3-8918-41b9-a747-d21eb79c6c90';
export const OTHER = '101c62b3-8918-41b9-a747-d21eb79c6c91';
export const REPLICA = '2cf0f8b4-5c1a-4c8c-9d8e-2f4a3a6b7c01';
export const COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556666';
export const TARGET = 'c0c0c0c0-1111-4222-8333-444455556677';
export const INSTANCE = 'a1a1a1a1-2222-4333-8444-555566667777';
export const E0 = 'e1e1e1e1-3333-4444-8555-666677778880';
export const E1 = 'e1e1e1e1-3333-4444-8555-666677778881';
export const E_OTHER = 'e1e1e1e1-3333-4444-8555-666677778889';

export const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
export const el0: TestElement = {
  id: E0,
  definition: { name: 'onap.policy.clamp.ac.element.Sim_0', version: '1.2.3' },
};
export const el1: TestElement = {
  id: E1,
  definition: { name: 'onap.policy.clamp.ac.element.Sim_1', version: '1.2.3' },
  startPhase: 1,
  properties: { baseUrl: 'http://x' },
};
export const elOther: TestElement = {
  id: E_OTHER,
  definition: { name: 'onap.policy.clamp.ac.element.Other', version: '1.0.0' },
  participantId: OTHER,
};

export const silent = (): void => undefined;

export type Outcome = ElementOutcome | Promise<ElementOutcome>;
export type CompositionResultLike = CompositionOutcome | Promise<CompositionOutcome>;
export const ok = { ok: true } as const;

/** A handler whose methods are jest mocks answering success unless a test changes them. */
export function mockHandler() {
  return {
    deploy: jest.fn((_ctx: ElementContext): Outcome => ok),
    undeploy: jest.fn((_ctx: ElementContext): Outcome => ok),
    lock: jest.fn((_ctx: ElementContext): Outcome => ok),
    unlock: jest.fn((_ctx: ElementContext): Outcome => ok),
    delete: jest.fn((_ctx: ElementContext): Outcome => ok),
    prime: jest.fn((_composition: Composition, _ctx: CompositionContext): CompositionResultLike => ok),
    deprime: jest.fn((_composition: Composition, _ctx: CompositionContext): CompositionResultLike => ok),
    update: jest.fn((_ctx: UpdateContext): Outcome => ok),
    migrate: jest.fn((_ctx: MigrationContext): Outcome => ok),
    migratePrecheck: jest.fn((_ctx: MigrationContext): Outcome => ok),
    rollbackMigration: jest.fn((_ctx: MigrationContext): Outcome => ok),
    prepare: jest.fn((_ctx: PrepareContext): Outcome => ok),
    review: jest.fn((_ctx: PrepareContext): Outcome => ok),
    // No `observe`: a participant without one sends what ONAP's send (its own specs add it).
  } satisfies Required<Omit<ElementHandler, 'observe'>>;
}

export interface Harness {
  bus: InMemoryMessageBus;
  runtime: ScriptedRuntime;
  timers: ManualTimers;
  participant: Participant;
  close(): Promise<void>;
}

const open: Harness[] = [];

export async function harness(handler: ElementHandler, options: Partial<ParticipantOptions> = {}): Promise<Harness> {
  const bus = new InMemoryMessageBus({ logger: silent });
  const runtime = new ScriptedRuntime({ bus });
  await runtime.start();
  const timers = new ManualTimers();
  const participant = new Participant({
    participantId: P,
    replicaId: REPLICA,
    supportedElementTypes: [SIM_TYPE],
    bus,
    handler,
    timers,
    logger: silent,
    ...options,
  });
  await participant.start();
  const h: Harness = {
    bus,
    runtime,
    timers,
    participant,
    close: async () => {
      await participant.stop();
      await runtime.close();
      await bus.close();
    },
  };
  open.push(h);
  return h;
}

/** Stops every harness opened since the last call; each spec calls it in `afterEach`. */
export async function closeHarnesses(): Promise<void> {
  for (const h of open.splice(0)) {
    await h.close();
  }
}

export const base = { participantId: P, compositionId: COMPOSITION };

/** Primes a two-element composition (phases 0 and 1) and waits for the PRIME_ACK. */
export async function primed(h: Harness, elements: TestElement[] = [el0, el1]): Promise<void> {
  const prime = primeOrder({ ...base, elements });
  await h.runtime.send(prime);
  await h.runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === prime.messageId);
}

export function acksFor(h: Harness, messageId: string) {
  return h.runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === messageId);
}
