import type { MigrationContext, PrepareContext, UpdateContext } from '@acm/participant-sdk';
import { deployOrder, primeOrder } from '@acm/participant-sdk/testing';
import type { TestElement } from '@acm/participant-sdk/testing';

import {
  base,
  closeHarnesses,
  COMPOSITION,
  E0,
  E1,
  el0,
  el1,
  harness,
  INSTANCE,
  mockHandler,
  P,
  primed,
  TARGET,
} from './testing/participant-spec-harness';

afterEach(closeHarnesses);

describe('Participant', () => {
  describe('update, prepare, review and migration', () => {
    it('updates with the old and the new properties', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(
        deployOrder({ ...base, instanceId: INSTANCE, elements: [{ ...el0, properties: { v: 1 } }] }),
      );
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const update = {
        ...deployOrder({ ...base, instanceId: INSTANCE, elements: [{ ...el0, properties: { v: 2 } }] }),
        messageType: 'PROPERTIES_UPDATE',
      };
      await h.runtime.send(update);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === update.messageId,
      );
      expect(ack).toMatchObject({
        message: 'Updated',
        automationCompositionResultMap: { [E0]: { deployState: 'DEPLOYED' } },
      });
      const ctx = handler.update.mock.calls[0]?.[0] as UpdateContext;
      expect(ctx.instanceElement.properties).toEqual({ v: 1 });
      expect(ctx.instanceElementUpdated.properties).toEqual({ v: 2 });
    });

    it('prepares stage by stage (stage ack, then final ack) and reviews', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const staged: TestElement = { ...el0, nodeProperties: { stage: { prepare: [0, 2] } } };
      await primed(h, [staged]);
      const prepare = (stage: number) => ({
        ...deployOrder({ ...base, instanceId: INSTANCE, elements: [staged] }),
        messageType: 'AUTOMATION_COMPOSITION_PREPARE',
        preDeploy: true,
        stage,
        participantList: [
          { participantId: P, acElementList: [{ id: E0, definition: el0.definition, properties: {} }] },
        ],
      });
      const first = prepare(0);
      await h.runtime.send(first);
      const stageAck = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === first.messageId,
      );
      expect(stageAck).toMatchObject({
        stage: 2,
        automationCompositionResultMap: { [E0]: { deployState: 'UNDEPLOYED' } },
      });
      expect((handler.prepare.mock.calls[0]?.[0] as PrepareContext).nextStage).toBe(2);
      const second = prepare(2);
      await h.runtime.send(second);
      const finalAck = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === second.messageId,
      );
      expect(finalAck.stage).toBeUndefined();
      expect(finalAck.message).toBe('Prepare completed');

      const review = {
        ...prepare(0),
        messageId: 'aaaaaaaa-0000-4000-8000-000000000010',
        preDeploy: false,
        participantList: [],
      };
      await h.runtime.send(review);
      const reviewAck = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === review.messageId,
      );
      expect(reviewAck.message).toBe('Review completed');
      expect(handler.review).toHaveBeenCalledTimes(1);
    });

    it('migrates across stages to the target composition and deletes REMOVED elements', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0, { ...el1, startPhase: 0 }]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, { ...el1, startPhase: 0 }] }));
      await h.runtime.waitForCount('AUTOMATION_COMPOSITION_STATECHANGE_ACK', 2);
      const target: TestElement = {
        ...el0,
        definition: { ...el0.definition, version: '2.0.0' },
        nodeProperties: { stage: [0, 1] },
      };
      const targetPrime = primeOrder({ ...base, compositionId: TARGET, elements: [target] });
      await h.runtime.send(targetPrime);
      await h.runtime.waitFor('PARTICIPANT_PRIME_ACK', (ack) => ack.responseTo === targetPrime.messageId);

      const migration = (stage: number) => ({
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId: `aaaaaaaa-0000-4000-8000-00000000002${stage}`,
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        participantIdList: [P],
        precheck: false,
        rollback: false,
        firstStage: stage === 0,
        stage,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [
              {
                id: E0,
                definition: target.definition,
                orderedState: 'MIGRATE',
                migrationState: 'DEFAULT',
                properties: { m: 1 },
              },
              {
                id: E1,
                definition: el1.definition,
                orderedState: 'MIGRATE',
                migrationState: 'REMOVED',
                properties: {},
              },
            ],
          },
        ],
      });
      const stage0 = migration(0);
      await h.runtime.send(stage0);
      const acks0 = await h.runtime.waitForCount(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        2,
        (a) => a.responseTo === stage0.messageId,
      );
      const byElement = Object.fromEntries(acks0.flatMap((ack) => Object.entries(ack.automationCompositionResultMap)));
      expect(byElement[E0]).toMatchObject({ deployState: 'MIGRATING' });
      expect(byElement[E1]).toMatchObject({ deployState: 'DELETED' });
      expect(acks0.find((ack) => E0 in ack.automationCompositionResultMap)?.stage).toBe(1);
      const ctx = handler.migrate.mock.calls[0]?.[0] as MigrationContext;
      expect(ctx).toMatchObject({ stage: 0, nextStage: 1, compositionElementTarget: { compositionId: TARGET } });

      const stage1 = migration(1);
      await h.runtime.send(stage1);
      const ack1 = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === stage1.messageId,
      );
      expect(ack1.stage).toBeUndefined();
      expect(ack1.automationCompositionResultMap[E0]).toMatchObject({ deployState: 'DEPLOYED', message: 'Migrated' });
      expect(h.participant.getInstance(INSTANCE)).toMatchObject({
        compositionId: TARGET,
        elements: [{ id: E0, definition: target.definition, properties: { m: 1 } }],
      });
    });

    it('runs a migration precheck without touching the cache', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h, [el0]);
      await h.runtime.send(deployOrder({ ...base, instanceId: INSTANCE, elements: [el0] }));
      await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      const precheck = {
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000030',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        precheck: true,
        stage: 0,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [{ id: E0, definition: el0.definition, migrationState: 'DEFAULT', properties: {} }],
          },
        ],
      };
      await h.runtime.send(precheck);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === precheck.messageId,
      );
      expect(ack).toMatchObject({
        message: 'Migration precheck completed',
        automationCompositionResultMap: { [E0]: { deployState: 'DEPLOYED', lockState: 'LOCKED' } },
      });
      expect(h.participant.getInstance(INSTANCE)?.compositionId).toBe(COMPOSITION);
    });

    it('does not cache an instance it does not hold when it prechecks NEW elements for it', async () => {
      const handler = mockHandler();
      const h = await harness(handler);
      const precheck = {
        messageType: 'AUTOMATION_COMPOSITION_MIGRATION',
        messageId: 'aaaaaaaa-0000-4000-8000-000000000033',
        timestamp: new Date().toISOString(),
        compositionId: COMPOSITION,
        compositionTargetId: TARGET,
        automationCompositionId: INSTANCE,
        revisionIdInstance: 'bbbbbbbb-0000-4000-8000-000000000003',
        precheck: true,
        stage: 0,
        participantUpdatesList: [
          {
            participantId: P,
            acElementList: [{ id: E1, definition: el1.definition, migrationState: 'NEW', properties: {} }],
          },
        ],
      };
      await h.runtime.send(precheck);
      const ack = await h.runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (a) => a.responseTo === precheck.messageId,
      );
      expect(ack.message).toBe('Migration precheck completed');
      expect(handler.migratePrecheck).toHaveBeenCalledTimes(1);
      expect(h.participant.getInstance(INSTANCE)).toBeUndefined();
    });
  });
});
