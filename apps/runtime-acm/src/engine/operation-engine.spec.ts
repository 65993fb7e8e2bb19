import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { AutomationCompositionDeploy, AutomationCompositionDeployAck } from '@acm/contracts';
import { decodeMessage } from '@acm/contracts';
import { Clock, IdGenerator } from '@acm/domain';
import type { AutomationComposition, CompositionDefinition, InstanceElement } from '@acm/domain';
import { InMemoryUnitOfWork } from '@acm/persistence/testing';
import { parseServiceTemplate } from '@acm/tosca';
import { Logger } from '@nestjs/common';

import { TemplateReader } from './template-reader';
import { loadRuntimeConfig } from '../config/runtime.config';
import { engineOn } from './testing/engine-fixture';

/** Time only moves when the test says so. */
class FakeClock extends Clock {
  constructor(private current: number) {
    super();
  }

  override now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** Predictable UUIDs: 00000000-0000-4000-8000-000000000001, ...2, ... */
class CountingIds extends IdGenerator {
  private next = 1;

  override uuid(): string {
    return `00000000-0000-4000-8000-${String(this.next++).padStart(12, '0')}`;
  }
}

const REPO_ROOT = join(__dirname, '..', '..', '..', '..');
const PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const COMPOSITION = 'c0000000-0000-4000-8000-000000000001';
const INSTANCE = 'a0000000-0000-4000-8000-000000000001';
const STARTED_AT = 1_764_000_000_000;

interface NodeTemplate {
  type: string;
  version: string;
  properties?: { startPhase?: number };
}

function threePhaseTemplate(): Record<string, unknown> {
  const parsed = parseServiceTemplate(readFileSync(join(REPO_ROOT, 'tosca/examples/sim-three-phase.yaml'), 'utf8'));
  if (!parsed.ok) {
    throw new Error(`the example template does not parse: ${JSON.stringify(parsed.problems)}`);
  }
  return parsed.template;
}

describe('OperationEngine on the in-memory store', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('deploys a three-phase instance phase by phase, each phase opened by the ACK that closed the previous one', async () => {
    const config = loadRuntimeConfig({ LOG_LEVEL: 'error' });
    const clock = new FakeClock(STARTED_AT);
    const unitOfWork = new InMemoryUnitOfWork();
    const templates = new TemplateReader(config);
    const engine = engineOn(config, unitOfWork, templates, clock, new CountingIds());

    const template = threePhaseTemplate();
    const nodeTemplates = (template.topology_template as { node_templates: Record<string, NodeTemplate> })
      .node_templates;
    const elementNames = templates.read(template).elements.map((element) => element.name);
    const definition: CompositionDefinition = {
      compositionId: COMPOSITION,
      name: 'sim-three-phase',
      version: '1.0.0',
      serviceTemplate: template,
      state: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
      lastMsg: STARTED_AT,
      elementStateMap: Object.fromEntries(
        elementNames.map((name, index) => [
          name,
          {
            nodeTemplateStateId: `d0000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
            participantId: PARTICIPANT,
            nodeTemplateId: { name, version: nodeTemplates[name]!.version },
            state: 'PRIMED' as const,
            message: null,
            outProperties: {},
          },
        ]),
      ),
      revisionId: 'e0000000-0000-4000-8000-000000000001',
    };
    const elements: InstanceElement[] = elementNames.map((name, index) => ({
      id: `b0000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      definition: { name, version: nodeTemplates[name]!.version },
      participantId: PARTICIPANT,
      deployState: 'UNDEPLOYED',
      lockState: 'NONE',
      subState: 'NONE',
      migrationState: 'DEFAULT',
      stage: null,
      operationalState: null,
      useState: null,
      description: null,
      message: null,
      properties: {},
      outProperties: {},
    }));
    const phaseOf = new Map(
      elements.map((element) => [element.id, nodeTemplates[element.definition.name]!.properties?.startPhase ?? 0]),
    );
    const instance: AutomationComposition = {
      instanceId: INSTANCE,
      compositionId: COMPOSITION,
      compositionTargetId: null,
      name: 'SimThreePhaseInstance',
      version: '1.0.0',
      description: null,
      derivedFrom: null,
      metadata: null,
      precheck: null,
      deployState: 'UNDEPLOYED',
      lockState: 'NONE',
      subState: 'NONE',
      stateChangeResult: 'NO_ERROR',
      phase: null,
      lastMsg: STARTED_AT,
      revisionId: 'e0000000-0000-4000-8000-000000000002',
      elements: Object.fromEntries(elements.map((element) => [element.id, element])),
    };
    expect([...new Set(phaseOf.values())].sort()).toEqual([0, 1, 2]);
    await unitOfWork.transaction(async (store) => {
      await store.definitions.insert(definition);
      await store.instances.insert(instance);
    });

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
      (await unitOfWork.read((store) => store.instances.find(INSTANCE)))!.value;
    /** The participant's answer for the elements of the message's phase. */
    const ackOf = (message: AutomationCompositionDeploy): AutomationCompositionDeployAck => ({
      messageType: 'AUTOMATION_COMPOSITION_DEPLOY_ACK',
      responseTo: message.messageId,
      automationCompositionId: INSTANCE,
      participantId: PARTICIPANT,
      stateChangeResult: 'NO_ERROR',
      automationCompositionResultMap: Object.fromEntries(
        elements
          .filter((element) => phaseOf.get(element.id) === message.startPhase)
          .map((element) => [element.id, { deployState: 'DEPLOYED' as const, lockState: 'LOCKED' as const }]),
      ),
    });

    await unitOfWork.transaction(async (store) => {
      const found = await store.instances.findForUpdate(INSTANCE);
      await engine.startInstanceOrder(store, found!, definition, 'DEPLOY');
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
    const [operation] = await unitOfWork.read((store) => store.operations.history(INSTANCE, 10));
    expect(operation).toMatchObject({
      order: 'DEPLOY',
      state: 'COMPLETED',
      startedAt: STARTED_AT,
      finishedAt: STARTED_AT + 3_000,
    });
    const events = await unitOfWork.read((store) => store.events.list(INSTANCE, 100));
    expect(events.filter((event) => event.event === 'PHASE_STARTED').map((event) => event.detail.phase)).toEqual([
      0, 1, 2,
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'COMPLETED', at: STARTED_AT + 3_000 });
  });
});
