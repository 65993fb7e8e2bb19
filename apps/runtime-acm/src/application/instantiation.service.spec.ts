import type { ReadModel } from '@acm/domain';
import { ReadModels, isDomainError } from '@acm/domain';
import { BufferedSessions, StoreReadModels } from '@acm/persistence';
import { Logger } from '@nestjs/common';

import { EngineFixture } from '../engine/testing/engine-fixture';
import { CountingIds } from '../engine/testing/engine-fixture';
import { SensitiveValues } from '../security/sensitive-values';
import { InstanceProperties } from './instance-properties';
import { InstantiationService } from './instantiation.service';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const DEPLOYED = { deployState: 'DEPLOYED', lockState: 'LOCKED' } as const;

/** The service as the runtime module wires it, on the fixture's in-memory store, fake clock and engine. */
function serviceOn(
  fixture: EngineFixture,
  reads: ReadModels = new StoreReadModels(fixture.unitOfWork),
): InstantiationService {
  return new InstantiationService(
    fixture.unitOfWork,
    fixture.templates,
    fixture.clock,
    new CountingIds(),
    fixture.engine,
    new InstanceProperties(fixture.config, fixture.clock),
    new SensitiveValues(fixture.config),
    new BufferedSessions(fixture.unitOfWork),
    reads,
  );
}

async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (isDomainError(error)) {
      return { code: error.code, message: error.message };
    }
    throw error;
  }
  throw new Error('the call was not refused');
}

describe('InstantiationService with the engine (in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  async function setUp(): Promise<{
    fixture: EngineFixture;
    service: InstantiationService;
    compositionId: string;
    instanceId: string;
  }> {
    const fixture = new EngineFixture();
    const definition = await fixture.definition('tosca/examples/sim-three-phase.yaml', () => P1);
    await fixture.unitOfWork.transaction((store) =>
      store.participants.save({
        participantId: P1,
        participantSupportedElementTypes: {},
        replicas: { r1: { replicaId: 'r1', participantState: 'ON_LINE', lastMsg: fixture.clock.now() } },
      }),
    );
    const service = serviceOn(fixture);
    const info = fixture.templates.readDefinition(definition);
    const created = await service.create(definition.compositionId, {
      compositionId: definition.compositionId,
      name: 'three-phase',
      version: '1.0.0',
      description: null,
      derivedFrom: null,
      metadata: null,
      elements: info.elements.map((element, index) => ({
        id: `b1000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
        definition: { name: element.name, version: element.version },
        description: null,
        properties: {},
      })),
    });
    return { fixture, service, compositionId: definition.compositionId, instanceId: created.instanceId };
  }

  it('answers get and list through the read port: no read of the unit of work of its own', async () => {
    const { fixture, compositionId, instanceId } = await setUp();
    const portReads: string[] = [];
    const store = new StoreReadModels(fixture.unitOfWork);
    const service = serviceOn(
      fixture,
      new (class extends ReadModels {
        override read<T>(work: (model: ReadModel) => Promise<T>): Promise<T> {
          portReads.push('read');
          return store.read(work);
        }
      })(),
    );
    const unitOfWorkReads = jest.spyOn(fixture.unitOfWork, 'read');
    const unitOfWorkTransactions = jest.spyOn(fixture.unitOfWork, 'transaction');

    const found = await service.get(compositionId, instanceId);
    const listed = await service.list({ compositionId });
    const mismatch = await refusal(service.get(P1, instanceId));

    expect(found.instanceId).toBe(instanceId);
    expect(listed.map((instance) => instance.instanceId)).toEqual([instanceId]);
    expect(mismatch.code).toBe('ID_MISMATCH');
    expect(portReads).toHaveLength(3);
    // StoreReadModels reads through the unit of work: each of its reads is one of the port's, none more.
    expect(unitOfWorkReads).toHaveBeenCalledTimes(portReads.length);
    expect(unitOfWorkTransactions).not.toHaveBeenCalled();
  });

  it('deploys in three phases through changeState, ACK by ACK, and refuses a second order meanwhile', async () => {
    const { fixture, service, compositionId, instanceId } = await setUp();
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    const phases: Array<number | null> = [];
    for (let index = 0; index < 3; index += 1) {
      const [sent] = (await fixture.take()).filter(
        (message) => message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY',
      );
      phases.push(sent!.phase);
      if (index === 0) {
        const second = await refusal(
          service.changeState(compositionId, instanceId, {
            deployOrder: 'UNDEPLOY',
            lockOrder: 'NONE',
            subOrder: 'NONE',
          }),
        );
        expect(second.code).toBe('ORDER_NOT_ALLOWED');
        expect(second.message).toContain('DEPLOYING');
      }
      fixture.clock.advance(1_500);
      await fixture.engine.applyInstanceAck(fixture.ackOf(sent!, P1, DEPLOYED));
    }
    expect(phases).toEqual([0, 1, 2]);
    const deployed = await service.get(compositionId, instanceId);
    expect(deployed).toMatchObject({ deployState: 'DEPLOYED', lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
    const [operation] = await fixture.unitOfWork.read((store) => store.operations.history(instanceId, 1));
    expect(operation).toMatchObject({ order: 'DEPLOY', state: 'COMPLETED', finishedAt: operation!.startedAt + 4_500 });
  });

  it('"supersede": true lets UNDEPLOY cancel a running DEPLOY; without it ONAP refusal stays', async () => {
    const { fixture, service, compositionId, instanceId } = await setUp();
    const undeploy = { deployOrder: 'UNDEPLOY', lockOrder: 'NONE', subOrder: 'NONE' } as const;
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    const [phase0] = (await fixture.take()).filter(
      (message) => message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY',
    );
    const before = await service.get(compositionId, instanceId);
    expect((await refusal(service.changeState(compositionId, instanceId, undeploy))).code).toBe('ORDER_NOT_ALLOWED');

    fixture.clock.advance(100);
    await service.changeState(compositionId, instanceId, undeploy, true);
    const superseding = await service.get(compositionId, instanceId);
    expect(superseding).toMatchObject({ deployState: 'UNDEPLOYING', stateChangeResult: 'NO_ERROR' });
    expect(superseding.revisionId).not.toBe(before.revisionId);
    // The superseded deploy's late answer changes nothing.
    await fixture.engine.applyInstanceAck(fixture.ackOf(phase0!, P1, DEPLOYED));
    expect((await service.get(compositionId, instanceId)).deployState).toBe('UNDEPLOYING');
    const states = (await fixture.unitOfWork.read((store) => store.operations.history(instanceId, 5))).map(
      (operation) => [operation.order, operation.state],
    );
    expect(states).toEqual([
      ['UNDEPLOY', 'RUNNING'],
      ['DEPLOY', 'SUPERSEDED'],
    ]);
    // Nothing runs: the flag changes nothing, the table decides.
    expect(
      (await refusal(service.changeState(compositionId, instanceId, { ...undeploy, deployOrder: 'DELETE' }, true)))
        .code,
    ).toBe('ORDER_NOT_ALLOWED');
  });

  it('after a timeout the same order is accepted again, supersedes the timed-out operation and completes', async () => {
    const { fixture, service, compositionId, instanceId } = await setUp();
    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    await fixture.take();
    fixture.clock.advance(fixture.config.maxOperationWaitMs + 1);
    expect(await fixture.supervisor.timeOutOverdue()).toBe(1);
    expect(await service.get(compositionId, instanceId)).toMatchObject({ stateChangeResult: 'TIMEOUT' });

    await service.changeState(compositionId, instanceId, {
      deployOrder: 'DEPLOY',
      lockOrder: 'NONE',
      subOrder: 'NONE',
    });
    for (let index = 0; index < 3; index += 1) {
      const [sent] = (await fixture.take()).filter(
        (message) => message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY',
      );
      await fixture.engine.applyInstanceAck(fixture.ackOf(sent!, P1, DEPLOYED));
    }
    expect(await service.get(compositionId, instanceId)).toMatchObject({
      deployState: 'DEPLOYED',
      stateChangeResult: 'NO_ERROR',
    });
    const states = (await fixture.unitOfWork.read((store) => store.operations.history(instanceId, 5))).map(
      (operation) => [operation.state, operation.timedOut],
    );
    expect(states).toEqual([
      ['COMPLETED', false],
      ['SUPERSEDED', true],
    ]);
  });
});
