import type { AutomationCompositionDeploy, AutomationCompositionDeployAck } from '@acm/contracts';
import { decodeMessage } from '@acm/contracts';
import type { AutomationComposition } from '@acm/domain';
import { Logger } from '@nestjs/common';

import {
  EngineFixture,
  STARTED_AT,
  THREE_PHASE_PARTICIPANT,
  inSession,
  storeThreePhase,
} from './testing/engine-fixture';

describe('OperationEngine on the in-memory store', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('deploys a three-phase instance phase by phase, each phase opened by the ACK that closed the previous one', async () => {
    const { clock, unitOfWork, templates, engine } = new EngineFixture();
    const { definition, instance, elements, phaseOf } = await storeThreePhase(unitOfWork, templates);
    const { instanceId } = instance;
    expect([...new Set(phaseOf.values())].sort()).toEqual([0, 1, 2]);

    /** The deploy messages queued since the last call, as a participant would receive them. */
    const takeDeployMessages = async (): Promise<AutomationCompositionDeploy[]> => {
      const queued = unitOfWork.queuedOutbox();
      await unitOfWork.deleteOutbox(queued.map((record) => record.id));
      return queued.flatMap((record) => {
        const decoded = decodeMessage(record.value);
        return decoded.ok && decoded.message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY' ? [decoded.message] : [];
      });
    };
    const current = async (): Promise<AutomationComposition> =>
      (await unitOfWork.read((store) => store.instances.find(instanceId)))!.value;
    /** The participant's answer for the elements of the message's phase. */
    const ackOf = (message: AutomationCompositionDeploy): AutomationCompositionDeployAck => ({
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY_ACK',
      responseTo: message.messageId,
      automationCompositionId: instanceId,
      participantId: THREE_PHASE_PARTICIPANT,
      stateChangeResult: 'NO_ERROR',
      automationCompositionResultMap: Object.fromEntries(
        elements
          .filter((element) => phaseOf.get(element.id) === message.startPhase)
          .map((element) => [element.id, { deployState: 'DEPLOYED' as const, lockState: 'LOCKED' as const }]),
      ),
    });

    await inSession(unitOfWork, async (session, store) => {
      const found = await store.instances.findForUpdate(instanceId);
      await engine.startInstanceOrder(session, found!, definition, 'DEPLOY');
    });

    const phasesSent: number[] = [];
    for (const expectedPhase of [0, 1, 2]) {
      const messages = await takeDeployMessages();
      expect(messages.map((message) => message.startPhase)).toEqual([expectedPhase]);
      phasesSent.push(messages[0]!.startPhase);
      const before = await current();
      expect(before.deployState).toBe('DEPLOYING');
      expect(before.phase).toBe(expectedPhase);
      clock.advance(1_000);
      await engine.applyInstanceAck(ackOf(messages[0]!));
    }
    expect(phasesSent).toEqual([0, 1, 2]);
    expect(await takeDeployMessages()).toEqual([]);

    const deployed = await current();
    expect(deployed.deployState).toBe('DEPLOYED');
    expect(deployed.lockState).toBe('LOCKED');
    expect(deployed.stateChangeResult).toBe('NO_ERROR');
    expect(Object.values(deployed.elements).map((element) => element.deployState)).toEqual(
      elements.map(() => 'DEPLOYED'),
    );
    const [operation] = await unitOfWork.read((store) => store.operations.history(instanceId, 10));
    expect(operation).toMatchObject({
      order: 'DEPLOY',
      state: 'COMPLETED',
      startedAt: STARTED_AT,
      finishedAt: STARTED_AT + 3_000,
    });
    const events = await unitOfWork.read((store) => store.events.list(instanceId, 100));
    expect(events.filter((event) => event.event === 'PHASE_STARTED').map((event) => event.detail.phase)).toEqual([
      0, 1, 2,
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'COMPLETED', at: STARTED_AT + 3_000 });
  });
});
