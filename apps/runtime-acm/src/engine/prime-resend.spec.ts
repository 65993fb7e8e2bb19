import type { CompositionDefinition, NodeTemplateState } from '@acm/domain';

import { EngineFixture, inSession } from './testing/engine-fixture';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c01';
const P2 = '101c62b3-8918-41b9-a747-d21eb79c6c02';

/** sim-two-participants, priming: ElementB1 on P2, the others on P1. */
async function priming(env: Record<string, string> = {}) {
  const fixture = new EngineFixture({ MAX_WAIT_MS: '20000', MAX_RETRY_COUNT: '3', ...env });
  const definition = await fixture.definition(
    'tosca/examples/sim-two-participants.yaml',
    (name) => (name.includes('ElementB') ? P2 : P1),
    // The example's own 60 s prime timeout would end the story before the third resend.
    { primeTimeoutMs: 200_000 },
  );
  const states = Object.fromEntries(
    Object.entries(definition.elementStateMap).map(([name, state]): [string, NodeTemplateState] => [
      name,
      { ...state, state: 'PRIMING' },
    ]),
  );
  const started: CompositionDefinition = { ...definition, state: 'PRIMING', elementStateMap: states };
  await inSession(fixture.unitOfWork, async (session, store) => {
    const found = (await store.definitions.findForUpdate(definition.compositionId))!;
    await store.definitions.update(started, found.version);
    await fixture.engine.startDefinitionOrder(session, started, 'PRIME');
  });
  const [prime] = await fixture.take();
  const primes = async () => (await fixture.take()).filter((sent) => sent.messageType === 'PARTICIPANT_PRIME');
  const addressed = (sent: Awaited<ReturnType<typeof primes>>[number]) =>
    (sent.message as unknown as { participantIdList: string[] }).participantIdList;
  const read = async () =>
    (await fixture.unitOfWork.read((store) => store.definitions.find(definition.compositionId)))!.value;
  return { fixture, definition, prime: prime!, primes, addressed, read };
}

describe('prime and deprime resends after MAX_WAIT_MS', () => {
  it('sends a silent prime again under its messageId, with a doubling delay, MAX_RETRY_COUNT times, then TIMEOUT', async () => {
    const h = await priming();
    const messageId = h.prime.message.messageId;
    const resendsAt: number[] = [];
    let elapsed = 0;
    for (const step of [19_999, 1, 39_999, 1, 79_999, 1, 59_998]) {
      h.fixture.clock.advance(step);
      elapsed += step;
      await h.fixture.supervisor.superviseRunning();
      const sent = await h.primes();
      if (sent.length > 0) {
        expect(sent.map((message) => message.message.messageId)).toEqual([messageId]);
        expect(h.addressed(sent[0]!).sort()).toEqual([P1, P2]);
        resendsAt.push(elapsed);
      }
    }
    // 20 s, then 40 s and 80 s later: three resends, and nothing after the last.
    expect(resendsAt).toEqual([20_000, 60_000, 140_000]);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(0);
    h.fixture.clock.advance(3);
    expect(await h.fixture.supervisor.timeOutOverdue()).toBe(1);
    expect(await h.read()).toMatchObject({ state: 'PRIMING', stateChangeResult: 'TIMEOUT' });
    const events = (await h.fixture.events(h.definition.compositionId)).map((event) => event.event);
    expect(events.filter((event) => event === 'RESENT')).toHaveLength(3);
    const metrics = await h.fixture.metrics.registry.metrics();
    expect(metrics).toContain('acm_silent_phase_resends_total{order="PRIME"} 3');
  });

  it('resends only to the participants that have not answered, and an answer starts the count again', async () => {
    const h = await priming();
    h.fixture.clock.advance(10_000);
    await h.fixture.engine.applyPrimeAck({
      messageType: 'PARTICIPANT_PRIME_ACK',
      responseTo: h.prime.message.messageId,
      compositionId: h.definition.compositionId,
      participantId: P1,
      compositionState: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
    });
    h.fixture.clock.advance(19_999);
    await h.fixture.supervisor.superviseRunning();
    expect(await h.primes()).toEqual([]);
    h.fixture.clock.advance(1);
    await h.fixture.supervisor.superviseRunning();
    const [resent] = await h.primes();
    expect(h.addressed(resent!)).toEqual([P2]);
    const updates = (resent!.message as unknown as { participantDefinitionUpdates: Array<{ participantId: string }> })
      .participantDefinitionUpdates;
    expect(updates.map((update) => update.participantId)).toEqual([P2]);
    // The resend answered: the prime completes and nothing more is sent.
    await h.fixture.engine.applyPrimeAck({
      messageType: 'PARTICIPANT_PRIME_ACK',
      responseTo: h.prime.message.messageId,
      compositionId: h.definition.compositionId,
      participantId: P2,
      compositionState: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
    });
    expect(await h.read()).toMatchObject({ state: 'PRIMED', stateChangeResult: 'NO_ERROR' });
    h.fixture.clock.advance(100_000);
    await h.fixture.supervisor.superviseRunning();
    expect(await h.primes()).toEqual([]);
  });

  it('sends nothing again with MAX_WAIT_MS=0', async () => {
    const h = await priming({ MAX_WAIT_MS: '0' });
    h.fixture.clock.advance(150_000);
    await h.fixture.supervisor.superviseRunning();
    expect(await h.primes()).toEqual([]);
  });
});
