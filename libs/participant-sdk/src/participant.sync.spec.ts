import type { ElementContext } from '@acm/participant-sdk';
import { deployOrder, stateChangeOrder } from '@acm/participant-sdk/testing';

import {
  acksFor,
  base,
  closeHarnesses,
  COMPOSITION,
  E0,
  E1,
  E_OTHER,
  el0,
  el1,
  elOther,
  harness,
  INSTANCE,
  mockHandler,
  OTHER,
  P,
  primed,
  REPLICA,
  SIM_TYPE,
  TARGET,
} from './testing/participant-spec-harness';
import type { Harness } from './testing/participant-spec-harness';

afterEach(closeHarnesses);

describe('Participant', () => {
  describe('sync', () => {
    const sync = (extra: Record<string, unknown>) => ({
      messageType: 'PARTICIPANT_SYNC_MSG',
      messageId: 'aaaaaaaa-0000-4000-8000-0000000000ff',
      timestamp: new Date().toISOString(),
      compositionId: COMPOSITION,
      participantIdList: [P],
      ...extra,
    });
    const restartList = [
      {
        automationCompositionId: INSTANCE,
        deployState: 'DEPLOYED',
        lockState: 'LOCKED',
        stateChangeResult: 'NO_ERROR',
        acElementList: [
          {
            id: E0,
            definition: el0.definition,
            participantId: P,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            properties: { a: 1 },
            outProperties: { b: 2 },
          },
          {
            id: E_OTHER,
            definition: elOther.definition,
            participantId: OTHER,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
          },
        ],
      },
    ];
    const definitions = [
      {
        participantId: P,
        automationCompositionElementDefinitionList: [
          {
            acElementDefinitionId: el0.definition,
            automationCompositionElementToscaNodeTemplate: { type: SIM_TYPE.typeName, properties: { startPhase: 0 } },
          },
        ],
      },
    ];

    /** A STATUS_REQ keyed like the SYNCs: once its STATUS is back, the SYNCs before it were handled. */
    async function barrier(h: Harness, messageId: string): Promise<void> {
      const before = h.runtime.messages('PARTICIPANT_STATUS').length;
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId,
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
      });
      await h.runtime.waitForCount('PARTICIPANT_STATUS', before + 1);
    }

    it('fills the caches from a restart SYNC (my elements only), so later orders find them', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await h.runtime.send(
        sync({
          restarting: true,
          state: 'PRIMED',
          participantDefinitionUpdates: definitions,
          automationcompositionList: restartList,
        }),
      );
      await barrier(h, 'aaaaaaaa-0000-4000-8000-000000000005');
      const undeploy = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [],
        deployOrderedState: 'UNDEPLOY',
      });
      await h.runtime.send({ ...undeploy, participantIdList: [P] });
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(Object.keys(ack.automationCompositionResultMap)).toEqual([E0]);
      const ctx = handler.undeploy.mock.calls[0]?.[0] as ElementContext;
      expect(ctx.instanceElement).toMatchObject({ properties: { a: 1 }, outProperties: { b: 2 } });
      expect(h.participant.getComposition(COMPOSITION)?.state).toBe('PRIMED');
    });

    it('honours excludeReplicas and delete', async () => {
      const h = await harness(mockHandler());
      await h.runtime.send(sync({ excludeReplicas: [REPLICA], participantDefinitionUpdates: definitions }));
      await h.runtime.send(
        sync({ messageId: 'aaaaaaaa-0000-4000-8000-0000000000fe', participantDefinitionUpdates: definitions }),
      );
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000003',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
      });
      await h.runtime.waitFor('PARTICIPANT_STATUS');
      expect(h.participant.getCompositions()).toHaveLength(1);

      await h.runtime.send(sync({ state: 'COMMISSIONED', delete: true }));
      await h.runtime.send({
        messageType: 'PARTICIPANT_STATUS_REQ',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000004',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
      });
      await h.runtime.waitForCount('PARTICIPANT_STATUS', 2);
      expect(h.participant.getCompositions()).toHaveLength(0);
    });

    it('asks a running operation to stop on a TIMEOUT sync; a late report still goes out, as ONAP sends it', async () => {
      const contexts: ElementContext[] = [];
      const handler = mockHandler();
      handler.deploy.mockImplementation((ctx) => {
        contexts.push(ctx);
        return 'pending';
      });
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      while (contexts.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await h.runtime.send(sync({ automationCompositionId: INSTANCE, stateChangeResult: 'TIMEOUT' }));
      const ctx = contexts[0] as ElementContext;
      while (!ctx.signal.aborted) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(h.runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK')).toHaveLength(0);
      // The handler finished anyway: its result is the element's, and the runtime applies it after the TIMEOUT.
      await ctx.report.done();
      const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(ack).toMatchObject({ responseTo: ctx.messageId, stateChangeResult: 'NO_ERROR' });
    });
  });

  describe('revision guard', () => {
    const NEW_REVISION = 'bbbbbbbb-0000-4000-8000-000000000001';

    it('parks an order whose instance revision differs, asks for a sync and runs it once the sync arrives', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const unlock = stateChangeOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        lockOrderedState: 'UNLOCK',
        revisionIdInstance: NEW_REVISION,
      });
      await h.runtime.send(unlock);
      const request = await h.runtime.waitFor('PARTICIPANT_REQ_SYNC_MSG');
      expect(request).toMatchObject({ participantId: P, replicaId: REPLICA, automationCompositionId: INSTANCE });
      expect(request.compositionId).toBeUndefined();
      expect(acksFor(h, unlock.messageId)).toHaveLength(0);

      await h.runtime.send({
        messageType: 'PARTICIPANT_SYNC_MSG',
        messageId: 'aaaaaaaa-0000-4000-8000-0000000000fe',
        timestamp: new Date().toISOString(),
        participantId: P,
        replicaId: REPLICA,
        compositionId: COMPOSITION,
        revisionIdComposition: COMPOSITION,
        state: 'PRIMED',
        restarting: true,
        participantIdList: [P],
        automationcompositionList: [
          {
            automationCompositionId: INSTANCE,
            revisionId: NEW_REVISION,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            stateChangeResult: 'NO_ERROR',
            acElementList: [
              { id: E0, definition: el0.definition, participantId: P, deployState: 'DEPLOYED', lockState: 'LOCKED' },
            ],
          },
        ],
      });
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (candidate) => candidate.responseTo === unlock.messageId,
      );
      expect(ack.automationCompositionResultMap[E0]).toMatchObject({ lockState: 'UNLOCKED' });
    });

    it('runs a parked order after two heartbeats when no sync answers', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      const deploy = deployOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        revisionIdComposition: NEW_REVISION,
      });
      await h.runtime.send(deploy);
      expect((await h.runtime.waitFor('PARTICIPANT_REQ_SYNC_MSG')).compositionId).toBe(COMPOSITION);
      h.timers.tick();
      await h.participant.whenIdle();
      expect(acksFor(h, deploy.messageId)).toHaveLength(0);
      h.timers.tick();
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === deploy.messageId);
    });

    it('acts at once on a migration in which all its elements are NEW, whatever instance revision it cached', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const OLD_REVISION = 'bbbbbbbb-0000-4000-8000-000000000002';
      const migration = (messageId: string, precheck: boolean, revisionIdInstance: string) => ({
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId,
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        revisionIdComposition: COMPOSITION,
        revisionIdInstance,
        participantIdList: [P, OTHER],
        precheck,
        rollback: false,
        firstStage: true,
        stage: 0,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [
              { id: E1, definition: el1.definition, orderedState: 'MIGRATE', migrationState: 'NEW', properties: {} },
            ],
          },
          {
            participantId: OTHER,
            acElementList: [
              {
                id: E_OTHER,
                definition: elOther.definition,
                orderedState: 'MIGRATE',
                migrationState: 'DEFAULT',
                properties: {},
              },
            ],
          },
        ],
      });
      // The precheck leaves this replica with the instance cached at the revision before the precheck.
      const precheck = migration('aaaaaaaa-0000-4000-8000-000000000031', true, OLD_REVISION);
      await h.runtime.send(precheck);
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === precheck.messageId);
      const migrate = migration('aaaaaaaa-0000-4000-8000-000000000032', false, NEW_REVISION);
      await h.runtime.send(migrate);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (candidate) => candidate.responseTo === migrate.messageId,
      );
      expect(ack.automationCompositionResultMap[E1]).toBeDefined();
      expect(handler.migrate).toHaveBeenCalledTimes(1);
      expect(h.runtime.messages('PARTICIPANT_REQ_SYNC_MSG')).toHaveLength(0);
    });

    it('lets a replica with an empty cache act on the DTOs of the order', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const deploy = deployOrder({
        ...base,
        instanceId: INSTANCE,
        elements: [el0],
        revisionIdComposition: NEW_REVISION,
      });
      await h.runtime.send(deploy);
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === deploy.messageId);
      expect(h.runtime.messages('PARTICIPANT_REQ_SYNC_MSG')).toHaveLength(0);
    });
  });
});
