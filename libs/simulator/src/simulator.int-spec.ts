/**
 * The simulator on real Kafka, with the test playing ONAP's runtime: it sends PRIME and DEPLOY shaped like
 * ONAP's example messages and checks the acks that come back. Each run uses fresh topics and a fresh
 * participant id, so runs do not disturb each other or anything else on the broker.
 */
import { randomUUID } from 'node:crypto';

import { KafkaMessageBus } from '@acm/messaging';
import { ScriptedRuntime } from '@acm/participant-sdk/testing';
import request from 'supertest';

import { eventually } from '../../../test/support/scripted-participant';
import { testKafkaBrokers } from '../../../test/support/services';
import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER, SIM_API_PATH } from './control-api';
import type { DropSwitchState } from './drop-switch';
import { createSimulator } from './simulator';
import type { Simulator } from './simulator';

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const silent = (): void => undefined;

describe('participant simulator on Kafka', () => {
  const suffix = randomUUID().slice(0, 8);
  const topics = { operation: `it-sim-op-${suffix}`, sync: `it-sim-sync-${suffix}` };
  const participantId = randomUUID();
  let runtimeBus: KafkaMessageBus;
  let simulatorBus: KafkaMessageBus;
  let runtime: ScriptedRuntime;
  let simulator: Simulator;

  beforeAll(async () => {
    runtimeBus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'it-fake-runtime', logger: silent });
    simulatorBus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'it-simulator', logger: silent });
    await runtimeBus.createTopics([
      { topic: topics.operation, numPartitions: 3 },
      { topic: topics.sync, numPartitions: 3 },
    ]);
    runtime = new ScriptedRuntime({ bus: runtimeBus, topics, waitTimeoutMs: 30_000 });
    await runtime.start();
    simulator = await createSimulator({ bus: simulatorBus, topics, participantId, timersMs: 0, logger: silent });

    const register = await runtime.waitFor(
      'PARTICIPANT_REGISTER',
      (message) => message.participantId === participantId,
    );
    expect(register.participantSupportedElementType).toEqual([
      expect.objectContaining({ typeName: SIM_TYPE, typeVersion: '1.0.0' }),
    ]);
    await runtime.acknowledgeRegistration(register);
    await runtime.waitFor('PARTICIPANT_STATUS', (message) => message.replicaId === register.replicaId);
  });

  afterAll(async () => {
    await simulator?.close();
    await runtime?.close();
    await simulatorBus?.close();
    await runtimeBus?.close();
  });

  /** Primes a one-element composition and returns the ids a deploy needs. */
  async function prime(): Promise<{ compositionId: string; definition: { name: string; version: string } }> {
    const compositionId = randomUUID();
    const definition = {
      name: 'onap.policy.clamp.ac.element.Sim_StarterAutomationCompositionElement',
      version: '1.2.3',
    };
    const messageId = randomUUID();
    await runtime.send({
      messageType: 'PARTICIPANT_PRIME',
      messageId,
      timestamp: new Date().toISOString(),
      compositionId,
      // The revision the runtime would announce: the deploy below carries the same (revision guard).
      revisionIdComposition: compositionId,
      participantIdList: [participantId],
      primeOrder: 'PRIME',
      participantDefinitionUpdates: [
        {
          participantId,
          automationCompositionElementDefinitionList: [
            {
              acElementDefinitionId: definition,
              automationCompositionElementToscaNodeTemplate: {
                type: SIM_TYPE,
                type_version: '1.0.0',
                properties: { startPhase: 0 },
              },
              outProperties: {},
            },
          ],
        },
      ],
      primeDtoList: [
        {
          participantId,
          compositionDto: {
            compositionId,
            inPropertiesMap: { [`${definition.name} ${definition.version}`]: { startPhase: 0 } },
            outPropertiesMap: { [`${definition.name} ${definition.version}`]: {} },
          },
        },
      ],
    });
    const ack = await runtime.waitFor('PARTICIPANT_PRIME_ACK', (message) => message.responseTo === messageId);
    expect(ack).toMatchObject({
      compositionId,
      participantId,
      replicaId: simulator.participant.replicaId,
      compositionState: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
      message: 'Primed',
    });
    return { compositionId, definition };
  }

  /** An ONAP-shaped DEPLOY for one new element. */
  function deployMessage(compositionId: string, definition: { name: string; version: string }) {
    const instanceId = randomUUID();
    const elementId = randomUUID();
    const messageId = randomUUID();
    const message = {
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY',
      messageId,
      timestamp: new Date().toISOString(),
      compositionId,
      automationCompositionId: instanceId,
      revisionIdComposition: compositionId,
      revisionIdInstance: randomUUID(),
      participantIdList: [participantId],
      startPhase: 0,
      firstStartPhase: true,
      participantUpdatesList: [
        {
          participantId,
          acElementList: [
            {
              id: elementId,
              definition,
              orderedState: 'DEPLOY',
              migrationState: 'DEFAULT',
              properties: { deployTimeoutMs: 200000 },
            },
          ],
        },
      ],
      participantDtoList: [
        {
          participantId,
          elementDtos: [
            {
              compositionElement: {
                compositionId,
                elementDefinitionId: definition,
                inProperties: { startPhase: 0 },
                outProperties: {},
                state: 'PRESENT',
              },
              instanceElementTarget: {
                instanceId,
                elementId,
                inProperties: { deployTimeoutMs: 200000 },
                outProperties: {},
                state: 'PRESENT',
              },
            },
          ],
        },
      ],
    };
    return { message, messageId, instanceId, elementId };
  }

  /** Sends an ONAP-shaped DEPLOY for one new element and returns the element's ack. */
  async function deploy(compositionId: string, definition: { name: string; version: string }) {
    const { message, messageId, instanceId, elementId } = deployMessage(compositionId, definition);
    await runtime.send(message);
    const ack = await runtime.waitFor(
      'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      (answer) => answer.responseTo === messageId,
    );
    expect(ack).toMatchObject({ automationCompositionId: instanceId, participantId });
    return { ack, elementId };
  }

  it('answers PRIME with PRIME_ACK and DEPLOY with a STATECHANGE_ACK', async () => {
    const { compositionId, definition } = await prime();
    const { ack, elementId } = await deploy(compositionId, definition);
    expect(ack).toMatchObject({
      stateChangeResult: 'NO_ERROR',
      message: 'Deployed',
      automationCompositionResultMap: {
        [elementId]: { deployState: 'DEPLOYED', lockState: 'LOCKED', outProperties: { InternalState: 'DEPLOYED' } },
      },
    });
  });

  it('drops the next DEPLOY after PUT /drop: not acted on, and handled when delivered again', async () => {
    const agent = request(simulator.controlHandler);
    const { compositionId, definition } = await prime();
    const armed = await agent
      .put(`${SIM_API_PATH}/drop`)
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send({ count: 1, messageTypes: ['AUTOMATION_COMPOSITION_DEPLOY'] });
    expect(armed.status).toBe(200);
    const { message, messageId, instanceId, elementId } = deployMessage(compositionId, definition);
    await runtime.send(message);
    const state = await eventually(
      'the DEPLOY to be dropped',
      async () => {
        const body = (await agent.get(`${SIM_API_PATH}/drop`).auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD))
          .body as DropSwitchState;
        return body.droppedCount === 1 ? body : undefined;
      },
      1500,
    );
    expect(state).toMatchObject({ remaining: 0, dropped: [{ messageId, automationCompositionId: instanceId }] });
    // Dropped before the SDK saw it: no handler ran, nothing was cached, nothing answered.
    const invocations = await agent.get(`${SIM_API_PATH}/invocations`).auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD);
    expect(invocations.body).not.toContainEqual(expect.objectContaining({ messageId }));
    const held = await agent
      .get(`${SIM_API_PATH}/instances/${instanceId}`)
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD);
    expect(held.text).toBe('');
    expect(runtime.messages('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === messageId)).toEqual(
      [],
    );

    // The runtime sends it again (the messageId was not remembered): handled once, answered once.
    await runtime.send(message);
    const ack = await runtime.waitFor(
      'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      (answer) => answer.responseTo === messageId,
    );
    expect(ack.automationCompositionResultMap[elementId]).toMatchObject({ deployState: 'DEPLOYED' });
    const after = await agent.get(`${SIM_API_PATH}/invocations`).auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD);
    expect(after.body).toContainEqual({ messageId, targetId: elementId, invocations: 1 });
  });

  it('fails a deploy after PUT /parameters with deploySuccess false', async () => {
    const agent = request(simulator.controlHandler);
    const put = await agent
      .put(`${SIM_API_PATH}/parameters`)
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send({ deploySuccess: false, deployTimerMs: 0 });
    expect(put.status).toBe(200);
    const { compositionId, definition } = await prime();
    const { ack, elementId } = await deploy(compositionId, definition);
    expect(ack).toMatchObject({
      stateChangeResult: 'FAILED',
      message: 'Deploy failed!',
      automationCompositionResultMap: { [elementId]: { deployState: 'UNDEPLOYED', lockState: 'NONE' } },
    });
  });
});
