import type { AutomationCompositionDeployAck, ParticipantMessage } from '@acm/contracts';
import { decodeMessage } from '@acm/contracts';
import { isOrderAllowed } from '@acm/domain';
import type {
  AutomationComposition,
  HistoryEventKind,
  HistoryEventOf,
  InstanceOrder,
  JsonObject,
  OperationSession,
  StoredEvent,
  Versioned,
} from '@acm/domain';
import { Logger } from '@nestjs/common';

import {
  EngineFixture,
  STARTED_AT,
  THREE_PHASE_PARTICIPANT,
  inSession,
  storeThreePhase,
} from './testing/engine-fixture';

interface Options {
  env?: Record<string, string>;
  definitionMetadata?: JsonObject;
  elementProperties?: JsonObject;
}

/** A six-element, three-phase instance (phases 0, 0, 1, 1, 2, 2) on one participant, driven by hand. */
async function harness(options: Options = {}) {
  const { clock, unitOfWork, templates, engine, supervisor, control, metrics } = new EngineFixture({
    MAX_WAIT_MS: '0',
    ...options.env,
  });
  const { definition, instance, elements, phaseOf } = await storeThreePhase(unitOfWork, templates, {
    metadata: options.definitionMetadata ?? {},
    elementProperties: options.elementProperties,
  });
  const { instanceId } = instance;
  const idsInPhase = (phase: number): string[] =>
    elements.filter((element) => phaseOf.get(element.id) === phase).map((element) => element.id);

  interface PhaseMessage {
    messageId: string;
    messageType: string;
    startPhase: number;
    described: string[];
  }
  /** The phase messages queued since the last call, with the element ids each describes. */
  const take = async (): Promise<PhaseMessage[]> => {
    const queued = unitOfWork.queuedOutbox();
    await unitOfWork.deleteOutbox(queued.map((record) => record.id));
    return queued.flatMap((record) => {
      const decoded = decodeMessage(record.value);
      if (!decoded.ok) {
        return [];
      }
      const message: ParticipantMessage = decoded.message;
      if (
        message.messageType !== 'AUTOMATION_COMPOSITION_DEPLOY' &&
        message.messageType !== 'AUTOMATION_COMPOSITION_STATE_CHANGE'
      ) {
        return [];
      }
      const described = (message.participantDtoList ?? []).flatMap((entry) =>
        entry.elementDtos.map((dto) => dto.instanceElement?.elementId ?? dto.instanceElementTarget?.elementId ?? ''),
      );
      // What the message asks of its phase: elements of other phases are described for the participant's cache.
      const inPhase = described.filter((id) => phaseOf.get(id) === message.startPhase);
      return [
        {
          messageId: message.messageId,
          messageType: message.messageType,
          startPhase: message.startPhase,
          described: inPhase,
        },
      ];
    });
  };
  const current = async (): Promise<AutomationComposition> =>
    (await unitOfWork.read((store) => store.instances.find(instanceId)))!.value;
  const running = () => unitOfWork.read((store) => store.operations.findRunning(instanceId));
  const events = async () => unitOfWork.read((store) => store.events.list(instanceId, 1000));
  const eventsNamed = async <K extends HistoryEventKind>(name: K) =>
    (await events()).filter((event): event is StoredEvent & HistoryEventOf<K> => event.event === name);
  /** The participant's answer, for the given elements, to a phase message. */
  const ack = (
    messageId: string,
    ids: readonly string[],
    state: { deployState: 'DEPLOYED' | 'UNDEPLOYED'; lockState: 'LOCKED' | 'NONE' } = {
      deployState: 'DEPLOYED',
      lockState: 'LOCKED',
    },
    failed = false,
  ): Promise<void> => {
    const answer: AutomationCompositionDeployAck = {
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY_ACK',
      responseTo: messageId,
      automationCompositionId: instanceId,
      participantId: THREE_PHASE_PARTICIPANT,
      stateChangeResult: failed ? 'FAILED' : 'NO_ERROR',
      ...(failed ? { message: 'boom' } : {}),
      automationCompositionResultMap: Object.fromEntries(ids.map((id) => [id, { ...state, result: !failed }])),
    };
    return engine.applyInstanceAck(answer);
  };
  const order = (name: InstanceOrder) =>
    inSession(unitOfWork, async (session, store) => {
      const found = await store.instances.findForUpdate(instanceId);
      await engine.startInstanceOrder(session, found!, definition, name);
    });
  const locked = async <T>(
    work: (session: OperationSession, found: Versioned<AutomationComposition>) => Promise<T>,
  ): Promise<T> => inSession(unitOfWork, async (session) => work(session, (await session.lockInstance(instanceId))!));
  const metric = async (name: string): Promise<number> => {
    const found = (await metrics.registry.getMetricsAsJSON()).find((entry) => entry.name === name);
    return (found?.values ?? []).reduce((sum, value) => sum + Number(value.value), 0);
  };
  return {
    clock,
    unitOfWork,
    engine,
    supervisor,
    control,
    definition,
    idsInPhase,
    take,
    current,
    running,
    eventsNamed,
    ack,
    order,
    locked,
    metric,
  };
}

describe('control of running work on the in-memory store', () => {
  beforeAll(() => Logger.overrideLogger(false));

  describe('resend after maxWaitMs', () => {
    it('locks nothing while no resend is due: a pass reads the running work once, unlocked', async () => {
      const h = await harness({ env: { MAX_WAIT_MS: '1000', MAX_RETRY_COUNT: '2', MAX_OPERATION_WAIT: '10000' } });
      await h.order('DEPLOY');
      const [first] = await h.take();
      const transactions = jest.spyOn(h.unitOfWork, 'transaction');
      h.clock.advance(999);
      expect(await h.supervisor.superviseRunning()).toBe(0);
      expect(transactions).not.toHaveBeenCalled();
      h.clock.advance(1);
      expect(await h.supervisor.superviseRunning()).toBe(1);
      expect(transactions).toHaveBeenCalledTimes(1);
      expect((await h.take()).map((message) => message.messageId)).toEqual([first!.messageId]);
    });

    it('resends a silent phase under its messageId with a doubling delay, then times out at the deadline', async () => {
      const h = await harness({ env: { MAX_WAIT_MS: '1000', MAX_RETRY_COUNT: '2', MAX_OPERATION_WAIT: '10000' } });
      await h.order('DEPLOY');
      const [first] = await h.take();
      expect(first).toMatchObject({ startPhase: 0, described: h.idsInPhase(0) });

      h.clock.advance(999);
      await h.supervisor.superviseRunning();
      expect(await h.take()).toEqual([]);
      h.clock.advance(1);
      await h.supervisor.superviseRunning();
      expect(await h.take()).toEqual([{ ...first, described: h.idsInPhase(0) }]);

      h.clock.advance(1_999);
      await h.supervisor.superviseRunning();
      expect(await h.take()).toEqual([]);
      h.clock.advance(1);
      await h.supervisor.superviseRunning();
      expect((await h.take()).map((message) => message.messageId)).toEqual([first!.messageId]);

      // maxRetryCount reached: nothing more leaves, only the deadline is left.
      h.clock.advance(5_000);
      await h.supervisor.superviseRunning();
      expect(await h.take()).toEqual([]);
      expect(await h.supervisor.timeOutOverdue()).toBe(0);
      // The resends did not move the deadline (MAX_OPERATION_WAIT from the phase's start).
      expect((await h.running())!.deadlineAt).toBe(STARTED_AT + 10_000);
      h.clock.advance(2_001);
      expect(await h.supervisor.timeOutOverdue()).toBe(1);
      expect((await h.current()).stateChangeResult).toBe('TIMEOUT');
      expect((await h.eventsNamed('RESENT')).map((event) => [event.detail.attempt, event.at - STARTED_AT])).toEqual([
        [1, 1_000],
        [2, 3_000],
      ]);
      expect(await h.metric('acm_silent_phase_resends_total')).toBe(2);
    });

    it('a resend answered moves on: the phase completes and the next one has a schedule of its own', async () => {
      const h = await harness({ env: { MAX_WAIT_MS: '1000', MAX_RETRY_COUNT: '3' } });
      await h.order('DEPLOY');
      const [first] = await h.take();
      h.clock.advance(1_000);
      await h.supervisor.superviseRunning();
      const [resent] = await h.take();
      expect(resent!.messageId).toBe(first!.messageId);
      h.clock.advance(10);
      await h.ack(resent!.messageId, h.idsInPhase(0));
      // The same answer once more (the participant answered the original too) changes nothing.
      await h.ack(first!.messageId, h.idsInPhase(0));
      const [phase1] = await h.take();
      expect(phase1).toMatchObject({ startPhase: 1, described: h.idsInPhase(1) });
      expect((await h.running())!.control).toMatchObject({ resent: 0 });
      h.clock.advance(999);
      await h.supervisor.superviseRunning();
      expect(await h.take()).toEqual([]);
      h.clock.advance(1);
      await h.supervisor.superviseRunning();
      expect((await h.take()).map((message) => message.messageId)).toEqual([phase1!.messageId]);
      expect((await h.eventsNamed('RESENT')).map((event) => event.detail.attempt)).toEqual([1, 1]);
    });

    it('a definition overrides MAX_WAIT_MS in its metadata', async () => {
      const h = await harness({ env: { MAX_WAIT_MS: '100000' }, definitionMetadata: { maxWaitMs: 50 } });
      await h.order('DEPLOY');
      await h.take();
      h.clock.advance(50);
      await h.supervisor.superviseRunning();
      expect(await h.take()).toHaveLength(1);
    });
  });

  describe('retry policy', () => {
    const policy = { retryPolicy: { limit: 2, backoff: { durationMs: 500, factor: 2, maxDurationMs: 5_000 } } };

    it('retries only the failed element after each backoff, then fails once the limit is reached', async () => {
      const h = await harness({ definitionMetadata: policy });
      await h.order('DEPLOY');
      const [phase0] = await h.take();
      const [good, bad] = h.idsInPhase(0);
      await h.ack(phase0!.messageId, [good!]);
      await h.ack(phase0!.messageId, [bad!], { deployState: 'UNDEPLOYED', lockState: 'NONE' }, true);
      expect((await h.current()).stateChangeResult).toBe('NO_ERROR');
      expect((await h.current()).elements[bad!]!.deployState).toBe('DEPLOYING');

      h.clock.advance(499);
      await h.supervisor.superviseRunning();
      expect(await h.take()).toEqual([]);
      h.clock.advance(1);
      await h.supervisor.superviseRunning();
      const [retry1] = await h.take();
      expect(retry1).toMatchObject({ startPhase: 0, described: [bad] });
      expect(retry1!.messageId).not.toBe(phase0!.messageId);

      await h.ack(retry1!.messageId, [bad!], { deployState: 'UNDEPLOYED', lockState: 'NONE' }, true);
      h.clock.advance(1_000);
      await h.supervisor.superviseRunning();
      const [retry2] = await h.take();
      expect(retry2).toMatchObject({ described: [bad] });
      await h.ack(retry2!.messageId, [bad!], { deployState: 'UNDEPLOYED', lockState: 'NONE' }, true);
      expect((await h.current()).stateChangeResult).toBe('FAILED');
      expect(await h.running()).toBeNull();
      expect(
        (await h.eventsNamed('RETRY_SCHEDULED')).map((event) => [event.detail.attempt, event.detail.delayMs]),
      ).toEqual([
        [1, 500],
        [2, 1_000],
      ]);
      expect((await h.eventsNamed('RETRY_STARTED')).map((event) => event.detail['elementIds'])).toEqual([[bad], [bad]]);
      expect((await h.eventsNamed('RETRY_ATTEMPT')).map((event) => event.detail['attempt'])).toEqual([1, 2]);
      expect(await h.metric('acm_element_retries_total')).toBe(2);
    });

    it('a retry that succeeds lets the deploy complete', async () => {
      const h = await harness({ definitionMetadata: policy });
      await h.order('DEPLOY');
      const [phase0] = await h.take();
      const [good, bad] = h.idsInPhase(0);
      await h.ack(phase0!.messageId, [good!]);
      await h.ack(phase0!.messageId, [bad!], { deployState: 'UNDEPLOYED', lockState: 'NONE' }, true);
      h.clock.advance(500);
      await h.supervisor.superviseRunning();
      const [retry] = await h.take();
      await h.ack(retry!.messageId, [bad!]);
      for (const phase of [1, 2]) {
        const [message] = await h.take();
        expect(message!.startPhase).toBe(phase);
        await h.ack(message!.messageId, h.idsInPhase(phase));
      }
      expect(await h.current()).toMatchObject({ deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });
    });

    it('without a policy a failure fails the operation as before', async () => {
      const h = await harness();
      await h.order('DEPLOY');
      const [phase0] = await h.take();
      await h.ack(phase0!.messageId, h.idsInPhase(0), { deployState: 'UNDEPLOYED', lockState: 'NONE' }, true);
      expect((await h.current()).stateChangeResult).toBe('FAILED');
    });
  });

  describe('cancel', () => {
    it('cancels mid-phase: late answers are recorded, nothing new leaves, DEPLOY and UNDEPLOY both apply after', async () => {
      const h = await harness();
      await h.order('DEPLOY');
      const [phase0] = await h.take();
      await h.locked((session, found) => h.control.cancelInstance(session, found, h.definition, false));
      const cancelled = await h.current();
      expect(cancelled).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'FAILED' });
      expect(isOrderAllowed('DEPLOY', cancelled)).toBe(true);
      expect(isOrderAllowed('UNDEPLOY', cancelled)).toBe(true);
      await h.take();

      await h.ack(phase0!.messageId, h.idsInPhase(0));
      expect(await h.take()).toEqual([]);
      const after = await h.current();
      expect(h.idsInPhase(0).map((id) => after.elements[id]!.deployState)).toEqual(['DEPLOYED', 'DEPLOYED']);
      expect(await h.eventsNamed('CANCELLED')).toHaveLength(1);
      expect(await h.metric('acm_operation_cancels_total')).toBe(1);

      // DEPLOY again redoes only what the cancelled deploy did not finish.
      await h.order('DEPLOY');
      const [next] = await h.take();
      expect(next).toMatchObject({ startPhase: 1, described: h.idsInPhase(1) });
    });

    it('cancel with rollback undeploys what completed or was in flight, in reverse order', async () => {
      const h = await harness();
      await h.order('DEPLOY');
      const [phase0] = await h.take();
      await h.ack(phase0!.messageId, h.idsInPhase(0));
      const [phase1] = await h.take();
      expect(phase1!.startPhase).toBe(1);
      await h.locked((session, found) => h.control.cancelInstance(session, found, h.definition, true));
      const rolling = await h.current();
      expect(rolling.deployState).toBe('UNDEPLOYING');
      expect(h.idsInPhase(2).map((id) => rolling.elements[id]!.deployState)).toEqual(['UNDEPLOYED', 'UNDEPLOYED']);
      const undeployed = { deployState: 'UNDEPLOYED' as const, lockState: 'NONE' as const };
      for (const phase of [1, 0]) {
        const [message] = await h.take();
        expect(message).toMatchObject({ messageType: 'AUTOMATION_COMPOSITION_STATE_CHANGE', startPhase: phase });
        await h.ack(message!.messageId, h.idsInPhase(phase), undeployed);
      }
      expect(await h.current()).toMatchObject({ deployState: 'UNDEPLOYED', stateChangeResult: 'NO_ERROR' });
      // The cancelled deploy's late answer for phase 1 is stale: the rollback replaced it.
      await h.ack(phase1!.messageId, h.idsInPhase(1));
      expect((await h.current()).deployState).toBe('UNDEPLOYED');
    });

    it('refuses with 409 NOTHING_RUNNING when nothing runs, and rollback of an order without a reverse', async () => {
      const h = await harness();
      await expect(
        h.locked((session, found) => h.control.cancelInstance(session, found, h.definition, false)),
      ).rejects.toMatchObject({
        code: 'NOTHING_RUNNING',
        message: expect.stringMatching(
          /no operation is running; DeployState: UNDEPLOYED;.*allowed now: DEPLOY, DELETE/,
        ),
      });
      await expect(
        h.locked((session, found) => h.control.pauseInstance(session, found, h.definition)),
      ).rejects.toMatchObject({
        code: 'NOTHING_RUNNING',
      });
      await h.order('DELETE');
      await expect(
        h.locked((session, found) => h.control.cancelInstance(session, found, h.definition, true)),
      ).rejects.toMatchObject({
        code: 'ORDER_NOT_ALLOWED',
      });
      expect(await h.running()).not.toBeNull();
    });
  });

  describe('pause and resume', () => {
    it('records in-flight answers while paused, dispatches nothing, and resumes with the pause not counted', async () => {
      const h = await harness({ env: { MAX_OPERATION_WAIT: '10000' } });
      await h.order('DEPLOY');
      const [phase0] = await h.take();
      h.clock.advance(1_000);
      await h.locked((session, found) => h.control.pauseInstance(session, found, h.definition));
      await h.ack(phase0!.messageId, h.idsInPhase(0));
      expect(await h.take()).toEqual([]);
      // Far past the deadline while paused: no TIMEOUT.
      h.clock.advance(60_000);
      expect(await h.supervisor.timeOutOverdue()).toBe(0);
      // Pausing again changes nothing: the pause still counts from its start.
      await h.locked((session, found) => h.control.pauseInstance(session, found, h.definition));
      expect((await h.running())!.control.pausedAt).toBe(STARTED_AT + 1_000);
      await h.locked((session, found) => h.control.resumeInstance(session, found, h.definition));
      const [phase1] = await h.take();
      expect(phase1).toMatchObject({ startPhase: 1, described: h.idsInPhase(1) });
      expect((await h.eventsNamed('RESUMED'))[0]!.detail.pausedMs).toBe(60_000);
      await expect(
        h.locked((session, found) => h.control.resumeInstance(session, found, h.definition)),
      ).rejects.toMatchObject({
        code: 'NOTHING_RUNNING',
      });
      for (const phase of [1, 2]) {
        const message = phase === 1 ? phase1 : (await h.take())[0];
        await h.ack(message!.messageId, h.idsInPhase(phase));
      }
      expect((await h.current()).deployState).toBe('DEPLOYED');
    });

    it('a phase resent, then completed while paused, opens the next on resume with its resends from zero', async () => {
      const h = await harness({ env: { MAX_WAIT_MS: '1000', MAX_RETRY_COUNT: '3' } });
      await h.order('DEPLOY');
      const [phase0] = await h.take();
      h.clock.advance(1_000);
      await h.supervisor.superviseRunning();
      expect((await h.take()).map((message) => message.messageId)).toEqual([phase0!.messageId]);
      expect((await h.running())!.control).toMatchObject({ resent: 1 });
      await h.locked((session, found) => h.control.pauseInstance(session, found, h.definition));
      await h.ack(phase0!.messageId, h.idsInPhase(0));
      h.clock.advance(500);

      await h.locked((session, found) => h.control.resumeInstance(session, found, h.definition));

      const [phase1] = await h.take();
      expect(phase1).toMatchObject({ startPhase: 1, described: h.idsInPhase(1) });
      expect((await h.running())!).toMatchObject({ phase: 1, control: { resent: 0, progressAt: STARTED_AT + 1_500 } });
      expect((await h.eventsNamed('PHASE_COMPLETED')).map((event) => event.detail.phase)).toEqual([0]);
    });

    it('a paused phase has its deadline moved by the pause', async () => {
      const h = await harness({ env: { MAX_OPERATION_WAIT: '10000' } });
      await h.order('DEPLOY');
      await h.take();
      h.clock.advance(4_000);
      await h.locked((session, found) => h.control.pauseInstance(session, found, h.definition));
      h.clock.advance(5_000);
      await h.locked((session, found) => h.control.resumeInstance(session, found, h.definition));
      expect((await h.running())!.deadlineAt).toBe(STARTED_AT + 15_000);
      h.clock.advance(5_999);
      expect(await h.supervisor.timeOutOverdue()).toBe(0);
      h.clock.advance(2);
      expect(await h.supervisor.timeOutOverdue()).toBe(1);
    });
  });

  describe('no-progress deadline', () => {
    it('reports the silent elements once, without failing them', async () => {
      const h = await harness({ env: { NO_PROGRESS_TIMEOUT: '500' } });
      await h.order('DEPLOY');
      await h.take();
      h.clock.advance(499);
      await h.supervisor.superviseRunning();
      expect(await h.eventsNamed('NO_PROGRESS')).toEqual([]);
      h.clock.advance(1);
      await h.supervisor.superviseRunning();
      await h.supervisor.superviseRunning();
      const [report, again] = await h.eventsNamed('NO_PROGRESS');
      expect(again).toBeUndefined();
      expect(report!.detail['elementIds']).toHaveLength(6);
      expect(report!.detail).toMatchObject({ phase: 0, silentForMs: 500 });
      expect((await h.current()).stateChangeResult).toBe('NO_ERROR');
      expect(await h.metric('acm_elements_no_progress_total')).toBe(6);
    });

    it('an element property noProgressTimeoutMs sets its own timeout', async () => {
      const h = await harness({ elementProperties: { noProgressTimeoutMs: 200 } });
      await h.order('DEPLOY');
      h.clock.advance(199);
      await h.supervisor.superviseRunning();
      expect(await h.eventsNamed('NO_PROGRESS')).toEqual([]);
      h.clock.advance(1);
      await h.supervisor.superviseRunning();
      expect((await h.eventsNamed('NO_PROGRESS'))[0]!.detail['elementIds']).toHaveLength(6);
    });
  });
});
