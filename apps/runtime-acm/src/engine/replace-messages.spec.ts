import type { InstanceElement, JsonObject } from '@acm/domain';
import { Logger } from '@nestjs/common';

import { EngineFixture } from './testing/engine-fixture';
import type { SentOrder } from './testing/engine-fixture';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const EXAMPLE = 'tosca/examples/sim-replace.yaml';
const COMPOSITION = 'acm.example.replace.Composition';

type Reached = Pick<InstanceElement, 'deployState' | 'lockState'>;

/** What a participant reaches for each message it is sent in a replacing UPDATE. */
function reachedBy(sent: SentOrder): Reached {
  const ordered = (sent.message as { deployOrderedState?: string }).deployOrderedState;
  if (ordered === 'UNDEPLOY') {
    return { deployState: 'UNDEPLOYED', lockState: 'NONE' };
  }
  if (ordered === 'DELETE') {
    return { deployState: 'DELETED', lockState: 'NONE' };
  }
  return { deployState: 'DEPLOYED', lockState: 'LOCKED' };
}

/**
 * Deploys the replace example, then runs one UPDATE with `replace`, every participant answering each message at
 * once; returns the UPDATE's messages: kind, ordered state, start phase, first-phase flag, and the elements described
 * (by node template name, with the zone each carries).
 */
async function updateTranscript(
  next: (idOf: (name: string) => string) => Record<string, JsonObject>,
  removeOrphans: boolean,
): Promise<{ lines: string[]; remaining: string[] }> {
  const fixture = new EngineFixture();
  const definition = await fixture.definition(
    EXAMPLE,
    () => P1,
    {},
    (template) => {
      if (!removeOrphans) {
        return template;
      }
      const nodeTemplates = { ...template.topology_template?.node_templates };
      nodeTemplates[COMPOSITION] = { ...nodeTemplates[COMPOSITION]!, metadata: { removeOrphans: true } };
      return { ...template, topology_template: { ...template.topology_template, node_templates: nodeTemplates } };
    },
  );
  const instance = await fixture.instance(definition, { properties: { zone: 'zone-a', baseUrl: 'http://a' } });
  const nameOf = new Map(
    Object.values(instance.elements).map((element) => [element.id, element.definition.name.split('.').at(-1)!]),
  );
  const idOf = (name: string): string => [...nameOf].find(([, short]) => short === name)![0];
  const settle = async (record: (sent: SentOrder) => void): Promise<void> => {
    for (let queued = await fixture.take(); queued.length > 0; queued = await fixture.take()) {
      const answers = [];
      for (const sent of queued) {
        record(sent);
        if (sent.messageType !== 'PARTICIPANT_SYNC_MSG') {
          answers.push(...Object.keys(sent.described).map((id) => fixture.ackOf(sent, id, reachedBy(sent))));
        }
      }
      for (const answer of answers) {
        await fixture.engine.applyInstanceAck(answer);
      }
    }
  };
  await fixture.order(instance.instanceId, 'DEPLOY');
  await settle(() => undefined);

  // The snapshot the instantiation service takes of a DEPLOYED instance before an UPDATE (what a rollback restores).
  const deployed = (await fixture.current(instance.instanceId))!;
  await fixture.unitOfWork.transaction((store) =>
    store.rollbacks.save({
      instanceId: deployed.instanceId,
      compositionId: deployed.compositionId,
      elements: deployed.elements,
      createdAt: 0,
    }),
  );
  const lines: string[] = [];
  await fixture.order(instance.instanceId, 'UPDATE', (current) => current, {
    replace: { next: next(idOf), removeOrphans },
  });
  await settle((sent) => {
    const message = sent.message as {
      deployOrderedState?: string;
      firstStartPhase?: boolean;
      participantDtoList?: Array<{
        elementDtos: Array<{ instanceElementTarget?: { elementId: string; inProperties: JsonObject } }>;
      }>;
    };
    const described = (message.participantDtoList ?? []).flatMap((dto) =>
      dto.elementDtos.map(
        (element) =>
          `${nameOf.get(element.instanceElementTarget?.elementId ?? '')}(${String(element.instanceElementTarget?.inProperties['zone'])})`,
      ),
    );
    lines.push(
      [
        sent.messageType,
        message.deployOrderedState ?? '',
        sent.phase ?? '-',
        message.firstStartPhase === undefined ? '' : `first=${message.firstStartPhase}`,
        described.join(','),
      ]
        .filter((part) => part !== '')
        .join(' '),
    );
  });
  const after = await fixture.current(instance.instanceId);
  return { lines, remaining: Object.keys(after?.elements ?? {}).map((id) => nameOf.get(id) ?? id) };
}

describe('the messages of a replacing UPDATE (in-memory store, fake clock)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('sends ONAP UNDEPLOY with the deployed properties, then DEPLOY with the new ones, of the replaced element only, then one PROPERTIES_UPDATE', async () => {
    const { lines, remaining } = await updateTranscript(
      (idOf) => ({
        [idOf('Database')]: { zone: 'zone-b', baseUrl: 'http://a' },
        [idOf('Frontend')]: { zone: 'zone-a', baseUrl: 'http://b' },
      }),
      false,
    );

    expect(lines).toEqual([
      'AUTOMATION_COMPOSITION_STATE_CHANGE UNDEPLOY 0 first=true Database(zone-a)',
      'AUTOMATION_COMPOSITION_DEPLOY 0 first=true Database(zone-b)',
      'PROPERTIES_UPDATE - Frontend(zone-a)',
      'PARTICIPANT_SYNC_MSG -',
    ]);
    expect(remaining.sort()).toEqual(['Backend', 'Database', 'Frontend']);
  });

  it('with removeOrphans, undeploys then deletes the left-out elements, dependents first, and they leave the instance', async () => {
    const { lines, remaining } = await updateTranscript(
      (idOf) => ({ [idOf('Database')]: { zone: 'zone-a', baseUrl: 'http://b' } }),
      true,
    );

    expect(lines).toEqual([
      'AUTOMATION_COMPOSITION_STATE_CHANGE UNDEPLOY 0 first=true Frontend(zone-a)',
      'AUTOMATION_COMPOSITION_STATE_CHANGE UNDEPLOY 0 first=false Backend(zone-a)',
      'AUTOMATION_COMPOSITION_STATE_CHANGE DELETE 0 first=true Frontend(zone-a)',
      'AUTOMATION_COMPOSITION_STATE_CHANGE DELETE 0 first=false Backend(zone-a)',
      'PROPERTIES_UPDATE - Database(zone-a)',
      'PARTICIPANT_SYNC_MSG -',
    ]);
    expect(remaining).toEqual(['Database']);
  });
});
