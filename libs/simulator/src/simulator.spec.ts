import { InMemoryMessageBus } from '@acm/messaging';
import { ManualTimers, ScriptedRuntime, deployOrder, primeOrder, stateChangeOrder } from '@acm/participant-sdk/testing';
import type { TestElement } from '@acm/participant-sdk/testing';
import express from 'express';
import request from 'supertest';

import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER, SIM_API_PATH } from './control-api';
import { DEFAULT_SIM_PARTICIPANT_ID, createSimulator } from './simulator';
import type { Simulator, SimulatorOptions } from './simulator';

const P = DEFAULT_SIM_PARTICIPANT_ID;
const COMPOSITION = 'c0c0c0c0-1111-4222-8333-444455556666';
const INSTANCE = 'a1a1a1a1-2222-4333-8444-555566667777';
const element: TestElement = {
  id: '709c62b3-8918-41b9-a747-d21eb79c6c34',
  definition: { name: 'onap.policy.clamp.ac.element.Sim_StarterAutomationCompositionElement', version: '1.2.3' },
  properties: { deployTimeoutMs: 200000 },
};
const order = { participantId: P, compositionId: COMPOSITION, elements: [element] };
const silent = (): void => undefined;

interface Harness {
  bus: InMemoryMessageBus;
  runtime: ScriptedRuntime;
  simulator: Simulator;
}

const open: Harness[] = [];

async function harness(options: Partial<SimulatorOptions> = {}): Promise<Harness> {
  const bus = new InMemoryMessageBus({ logger: silent });
  const runtime = new ScriptedRuntime({ bus });
  await runtime.start();
  const simulator = await createSimulator({ bus, timersMs: 0, logger: silent, timers: new ManualTimers(), ...options });
  const h = { bus, runtime, simulator };
  open.push(h);
  return h;
}

afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.simulator.close();
    await h.runtime.close();
    await h.bus.close();
  }
});

function api(h: Harness) {
  const agent = request(h.simulator.controlHandler);
  return {
    get: (path: string) => agent.get(`${SIM_API_PATH}${path}`).auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD),
    put: (path: string, body: object) =>
      agent.put(`${SIM_API_PATH}${path}`).auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD).send(body),
  };
}

async function primeAndDeploy(h: Harness): Promise<void> {
  await h.runtime.send(primeOrder(order));
  await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
  const deploy = deployOrder({ ...order, instanceId: INSTANCE });
  await h.runtime.send(deploy);
  await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === deploy.messageId);
}

describe('participant simulator', () => {
  it('registers as ONAP simulator participant with its element type', async () => {
    const h = await harness();
    await expect(h.runtime.waitFor('PARTICIPANT_REGISTER')).resolves.toMatchObject({
      participantId: P,
      participantSupportedElementType: [
        expect.objectContaining({
          typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement',
          typeVersion: '1.0.0',
        }),
      ],
    });
  });

  it('primes and deploys, recording InternalState like ONAP', async () => {
    const h = await harness();
    await h.runtime.send(primeOrder(order));
    const primeAck = await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
    expect(primeAck).toMatchObject({
      compositionState: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
      message: 'Primed',
      outPropertiesList: [{ elementDefinitionId: element.definition, outProperties: { InternalState: 'PRIMED' } }],
    });
    const deploy = deployOrder({ ...order, instanceId: INSTANCE });
    await h.runtime.send(deploy);
    const ack = await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
    expect(ack).toMatchObject({
      responseTo: deploy.messageId,
      stateChangeResult: 'NO_ERROR',
      message: 'Deployed',
      automationCompositionResultMap: {
        [element.id]: { deployState: 'DEPLOYED', lockState: 'LOCKED', outProperties: { InternalState: 'DEPLOYED' } },
      },
    });
    // ONAP's simulator first pushes the transitional InternalState in a STATUS.
    const status = await h.runtime.waitFor('PARTICIPANT_STATUS', (s) => s.automationCompositionInfoList !== undefined);
    expect(status.automationCompositionInfoList?.[0]?.elements?.[0]?.outProperties).toEqual({
      InternalState: 'DEPLOYING',
    });

    const undeploy = stateChangeOrder({ ...order, instanceId: INSTANCE, deployOrderedState: 'UNDEPLOY' });
    await h.runtime.send(undeploy);
    const undeployed = await h.runtime.waitFor(
      'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      (a) => a.responseTo === undeploy.messageId,
    );
    expect(undeployed.automationCompositionResultMap[element.id]).toMatchObject({
      deployState: 'UNDEPLOYED',
      outProperties: { InternalState: 'UNDEPLOYED' },
    });
  });

  it('fails the operations listed at start-up', async () => {
    const h = await harness({ failOperations: ['deploy'] });
    await h.runtime.send(primeOrder(order));
    await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
    await h.runtime.send(deployOrder({ ...order, instanceId: INSTANCE }));
    await expect(h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK')).resolves.toMatchObject({
      stateChangeResult: 'FAILED',
      message: 'Deploy failed!',
      automationCompositionResultMap: {
        [element.id]: { deployState: 'UNDEPLOYED', outProperties: { InternalState: 'UNDEPLOYED' } },
      },
    });
  });

  describe('control API', () => {
    it('requires HTTP Basic credentials, except for /health', async () => {
      const h = await harness();
      const agent = request(h.simulator.controlHandler);
      const anonymous = await agent.get(`${SIM_API_PATH}/parameters`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ errorDetails: expect.stringContaining('Unauthorized') });
      expect(anonymous.headers['www-authenticate']).toContain('Basic');
      expect((await agent.get(`${SIM_API_PATH}/parameters`).auth(DEFAULT_SIM_USER, 'wrong')).status).toBe(401);
      const health = await agent.get('/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'UP', participantId: P });
      expect((await agent.get('/nowhere')).status).toBe(404);
      expect((await api(h).get('/nowhere')).status).toBe(404);
    });

    it('accepts other credentials when configured', async () => {
      const h = await harness({ auth: { user: 'u', password: 'p' } });
      const response = await request(h.simulator.controlHandler).get(`${SIM_API_PATH}/parameters`).auth('u', 'p');
      expect(response.status).toBe(200);
    });

    it('reads and changes SimConfig; a PUT that omits fields restores their start-up values', async () => {
      const h = await harness({ timersMs: 0 });
      const initial = await api(h).get('/parameters');
      expect(initial.status).toBe(200);
      expect(initial.body).toMatchObject({
        deploySuccess: true,
        migratePrecheck: true,
        rollback: true,
        deployTimerMs: 0,
        primeTimerMs: 0,
      });
      expect((await api(h).put('/parameters', { deploySuccess: false, lockTimerMs: 5 })).status).toBe(200);
      expect((await api(h).get('/parameters')).body).toMatchObject({
        deploySuccess: false,
        lockTimerMs: 5,
        undeploySuccess: true,
      });
      await api(h).put('/parameters', { undeploySuccess: false });
      expect((await api(h).get('/parameters')).body).toMatchObject({ deploySuccess: true, lockTimerMs: 0 });

      const bad = await api(h).put('/parameters', { deploySuccess: 'no', deployTimerMs: -1 });
      expect(bad.status).toBe(400);
      expect(bad.body.errorDetails).toContain('deploySuccess');
      expect(bad.body.errorDetails).toContain('deployTimerMs');
      const notJson = await request(h.simulator.controlHandler)
        .put(`${SIM_API_PATH}/parameters`)
        .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
        .set('Content-Type', 'application/json')
        .send('{');
      expect(notJson.status).toBe(400);
    });

    it('accepts YAML bodies', async () => {
      const h = await harness();
      const response = await request(h.simulator.controlHandler)
        .put(`${SIM_API_PATH}/parameters`)
        .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
        .set('Content-Type', 'application/yaml')
        .send('primeSuccess: false\n');
      expect(response.status).toBe(200);
      expect(h.simulator.settings.config.primeSuccess).toBe(false);
    });

    it('fails a deploy after PUT /parameters deploySuccess false', async () => {
      const h = await harness();
      await api(h).put('/parameters', { deploySuccess: false, deployTimerMs: 0 });
      await h.runtime.send(primeOrder(order));
      await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
      await h.runtime.send(deployOrder({ ...order, instanceId: INSTANCE }));
      await expect(h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK')).resolves.toMatchObject({
        stateChangeResult: 'FAILED',
      });
    });

    it('fails the listed operations of the instances named in PUT /failures only, until cleared', async () => {
      const h = await harness();
      const other = 'b2b2b2b2-3333-4444-8555-666677778888';
      const set = await api(h).put('/failures', {
        instances: [{ instanceId: INSTANCE.toUpperCase(), operations: ['deploy'] }],
      });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ instances: [{ instanceId: INSTANCE, operations: ['deploy'] }] });
      expect((await api(h).get('/failures')).body).toEqual(set.body);
      await h.runtime.send(primeOrder(order));
      await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
      const deployOf = async (instanceId: string): Promise<unknown> => {
        const deploy = deployOrder({ ...order, instanceId });
        await h.runtime.send(deploy);
        return (
          await h.runtime.waitFor(
            'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
            (ack) => ack.responseTo === deploy.messageId,
          )
        ).stateChangeResult;
      };
      expect(await deployOf(INSTANCE)).toBe('FAILED');
      expect(await deployOf(other)).toBe('NO_ERROR');

      expect((await api(h).put('/failures', { instances: [] })).body).toEqual({ instances: [] });
      expect(await deployOf(INSTANCE)).toBe('NO_ERROR');
    });

    it('refuses a PUT /failures body naming the field and the rule', async () => {
      const h = await harness();
      const bad = await api(h).put('/failures', {
        instances: [{ instanceId: 'nope', operations: ['deploy', 'prime'] }, 'x'],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errorDetails).toContain('instances[0].instanceId: must be a UUID');
      expect(bad.body.errorDetails).toContain('instances[0].operations[1]: "prime" is not one of');
      expect(bad.body.errorDetails).toContain('instances[1]: must be an object');
      expect((await api(h).put('/failures', {})).body.errorDetails).toContain('instances: is required');
      expect((await api(h).get('/failures')).body).toEqual({ instances: [] });
    });

    it('lists and filters instances', async () => {
      const h = await harness();
      await primeAndDeploy(h);
      const all = await api(h).get('/instances');
      expect(all.status).toBe(200);
      expect(all.body.automationCompositionList).toEqual([
        expect.objectContaining({
          instanceId: INSTANCE,
          compositionId: COMPOSITION,
          deployState: 'DEPLOYED',
          lockState: 'LOCKED',
          elements: {
            [element.id]: expect.objectContaining({
              id: element.id,
              participantId: P,
              definition: element.definition,
              properties: element.properties,
              outProperties: { InternalState: 'DEPLOYED' },
            }),
          },
        }),
      ]);
      expect((await api(h).get('/instances?deployState=UNDEPLOYED')).body.automationCompositionList).toEqual([]);
      expect(
        (await api(h).get(`/instances?instanceIds=${INSTANCE.toUpperCase()}&stateChangeResult=NO_ERROR`)).body
          .automationCompositionList,
      ).toHaveLength(1);
      expect((await api(h).get('/instances?deployState=SIDEWAYS')).status).toBe(400);
      expect((await api(h).get(`/instances/${INSTANCE}`)).body).toMatchObject({ instanceId: INSTANCE });
    });

    it('answers 200 with an empty body for an instance it does not hold, as ONAP does', async () => {
      const h = await harness();
      await primeAndDeploy(h);
      const unknown = await api(h).get('/instances/a1a1a1a1-2222-4333-8444-000000000000');
      expect(unknown.status).toBe(200);
      expect(unknown.headers['content-length']).toBe('0');
      expect(unknown.text).toBe('');
      const malformed = await api(h).get('/instances/not-a-uuid');
      expect(malformed.status).toBe(400);
      expect(malformed.body.errorDetails).toContain('instanceId');
    });

    it('pushes element outProperties through PUT /datas (a STATUS) and lists them in GET /datas', async () => {
      const h = await harness();
      await primeAndDeploy(h);
      const body = {
        outProperties: { test: { object: 'x', from: 'Participant', to: 'Runtime' } },
        automationCompositionId: INSTANCE,
        automationCompositionElementId: element.id,
        useState: 'IDLE',
        operationalState: 'ENABLED',
      };
      expect((await api(h).put('/datas', body)).status).toBe(200);
      const status = await h.runtime.waitFor('PARTICIPANT_STATUS', (s) =>
        JSON.stringify(s.automationCompositionInfoList ?? []).includes('Participant'),
      );
      expect(status).toMatchObject({
        participantId: P,
        compositionId: COMPOSITION,
        automationCompositionInfoList: [
          {
            automationCompositionId: INSTANCE,
            elements: [
              {
                automationCompositionElementId: element.id,
                useState: 'IDLE',
                operationalState: 'ENABLED',
                outProperties: body.outProperties,
              },
            ],
          },
        ],
      });
      const datas = await api(h).get('/datas');
      expect(datas.body.list).toEqual([
        expect.objectContaining({
          automationCompositionId: INSTANCE,
          automationCompositionElementId: element.id,
          intProperties: element.properties,
          outProperties: body.outProperties,
          useState: 'IDLE',
        }),
      ]);
      expect((await api(h).put('/datas', { ...body, automationCompositionElementId: INSTANCE })).status).toBe(404);
      expect((await api(h).put('/datas', { outProperties: {} })).status).toBe(400);
    });

    it('makes an element gone, unhealthy or changed for observe through PUT /observations, and back', async () => {
      const h = await harness();
      await primeAndDeploy(h);
      // Nobody asked to observe: the simulator reports nothing, as ONAP's.
      await expect(h.simulator.participant.observeNow()).resolves.toBe(0);
      const gone = { instanceId: INSTANCE, elementId: element.id, present: false, reason: 'deleted by hand' };
      const put = await api(h).put('/observations', gone);
      expect(put.status).toBe(200);
      expect(put.body).toEqual([
        { instanceId: INSTANCE, elementId: element.id, present: false, healthy: true, reason: 'deleted by hand' },
      ]);
      await expect(h.simulator.participant.observeNow()).resolves.toBe(1);
      const report = await h.runtime.waitFor('PARTICIPANT_STATUS', (s) =>
        JSON.stringify(s.automationCompositionInfoList ?? []).includes('deleted by hand'),
      );
      expect(report.automationCompositionInfoList?.[0]?.elements?.[0]?.observation).toEqual({
        present: false,
        healthy: true,
        reason: 'deleted by hand',
        properties: element.properties,
      });
      const changed = { instanceId: INSTANCE, elementId: element.id, properties: { deployTimeoutMs: 1 } };
      expect((await api(h).put('/observations', changed)).status).toBe(200);
      await h.simulator.participant.observeNow();
      await h.runtime.waitFor('PARTICIPANT_STATUS', (s) =>
        JSON.stringify(s.automationCompositionInfoList ?? []).includes('"deployTimeoutMs":1}'),
      );
      const agent = request(h.simulator.controlHandler);
      const cleared = await agent
        .delete(`${SIM_API_PATH}/observations?instanceId=${INSTANCE}&elementId=${element.id}`)
        .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD);
      expect(cleared.status).toBe(200);
      await expect(h.simulator.participant.observeNow()).resolves.toBe(0);
      const bad = await api(h).put('/observations', { instanceId: 'x', elementId: element.id, present: 'no' });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('instanceId: must be a UUID; present: must be a boolean');
    });

    it('observes every deployed element, healthy and as desired, with observeAll', async () => {
      const h = await harness({ observeAll: true });
      await primeAndDeploy(h);
      await expect(h.simulator.participant.observeNow()).resolves.toBe(1);
      const report = await h.runtime.waitFor('PARTICIPANT_STATUS', (s) =>
        JSON.stringify(s.automationCompositionInfoList ?? []).includes('observation'),
      );
      expect(report.automationCompositionInfoList?.[0]?.elements?.[0]?.observation).toEqual({
        present: true,
        healthy: true,
        properties: element.properties,
      });
    });

    it('pushes definition outProperties through PUT /compositiondatas', async () => {
      const h = await harness();
      await h.runtime.send(primeOrder(order));
      await h.runtime.waitFor('PARTICIPANT_PRIME_ACK');
      const listed = await api(h).get('/compositiondatas');
      expect(listed.body.list).toEqual([
        {
          compositionId: COMPOSITION,
          compositionDefinitionElementId: element.definition,
          intProperties: { startPhase: 0 },
          outProperties: { InternalState: 'PRIMED' },
        },
      ]);
      const body = {
        compositionId: COMPOSITION,
        compositionDefinitionElementId: element.definition,
        outProperties: { shared: 'yes' },
      };
      expect((await api(h).put('/compositiondatas', body)).status).toBe(200);
      const status = await h.runtime.waitFor('PARTICIPANT_STATUS', (s) => s.participantDefinitionUpdates !== undefined);
      expect(status).toMatchObject({
        compositionId: COMPOSITION,
        participantDefinitionUpdates: [
          {
            participantId: P,
            automationCompositionElementDefinitionList: [
              { acElementDefinitionId: element.definition, outProperties: { shared: 'yes' } },
            ],
          },
        ],
      });
      expect((await api(h).put('/compositiondatas', { ...body, compositionId: INSTANCE })).status).toBe(404);
    });

    it('works as Express middleware next to other routes, with a body already parsed', async () => {
      const h = await harness();
      const app = express();
      app.use(express.json());
      app.use(h.simulator.controlHandler);
      app.get('/health', (_request, response) => {
        response.json({ owner: 'runtime' });
      });
      expect((await request(app).get('/health')).body).toEqual({ owner: 'runtime' });
      expect((await request(app).get('/onap/policy/simparticipant/health')).body).toMatchObject({ status: 'UP' });
      const put = await request(app)
        .put(`${SIM_API_PATH}/parameters`)
        .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
        .send({ reviewSuccess: 'ignored', review: false });
      expect(put.status).toBe(200);
      expect(h.simulator.settings.config.review).toBe(false);
      expect((await request(app).get(`${SIM_API_PATH}/parameters`)).status).toBe(401);
    });

    it.each([
      ['a self-referencing alias', 'a: &x [*x]\n', 'nested deeper than 100 levels'],
      [
        'a billion-laughs body',
        [
          'a: &a [x,x,x,x,x,x,x,x,x,x]',
          ...'bcdefgh'
            .split('')
            .map((level, index) => `${level}: &${level} [${Array(10).fill(`*${'abcdefg'[index]}`).join(',')}]`),
        ].join('\n'),
        'expands to more than',
      ],
    ])('refuses a YAML body with %s with 400', async (_case, text, message) => {
      const h = await harness();
      const response = await request(h.simulator.controlHandler)
        .put(`${SIM_API_PATH}/parameters`)
        .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
        .set('Content-Type', 'application/yaml')
        .send(text);
      expect(response.status).toBe(400);
      expect(response.body.errorDetails).toContain(message);
    });

    it('refuses %ff in an instance path with 400', async () => {
      const h = await harness();
      const response = await api(h).get('/instances/%ff');
      expect(response.status).toBe(400);
      expect(response.body.errorDetails).toBe('instanceId: "%ff" is not valid percent-encoded UTF-8');
      expect(response.text.endsWith('}\n')).toBe(true);
    });

    it('refuses valid credentials followed by junk', async () => {
      const h = await harness();
      const token = Buffer.from(`${DEFAULT_SIM_USER}:${DEFAULT_SIM_PASSWORD}`).toString('base64');
      const response = await request(h.simulator.controlHandler)
        .get(`${SIM_API_PATH}/parameters`)
        .set('Authorization', `Basic ${token} junk`);
      expect(response.status).toBe(401);
    });

    it('answers 405 for a wrong method on a known path', async () => {
      const h = await harness();
      const response = await request(h.simulator.controlHandler)
        .delete(`${SIM_API_PATH}/parameters`)
        .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD);
      expect(response.status).toBe(405);
    });
  });
});
