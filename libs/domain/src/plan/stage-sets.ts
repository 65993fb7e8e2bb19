import type { InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { StageSets } from '../planners/stage-planner';
import type { ElementTemplate } from '../operation/topology';

const FALLBACK_STAGES: StageSets = { prepare: [0], migrate: [0] };

const key = (name: string, version: string): string => `${name}|${version}`;

/**
 * The stage sets an element walks during a staged order, taken where the engine's phase lookup takes them: from the
 * composition the element is going to, a REMOVED one's from the composition it leaves. A plan needs them to answer
 * as a participant does (a stage ACK names the next stage of the element's set).
 */
export function stageSetsOf(
  order: InstanceOrder,
  own: readonly ElementTemplate[],
  other: readonly ElementTemplate[] | null,
): (element: InstanceElement) => StageSets {
  const stagesIn = (side: readonly ElementTemplate[] | null): Map<string, StageSets> =>
    new Map((side ?? []).map((template) => [key(template.name, template.version), template.stage]));
  const ownStages = stagesIn(own);
  const otherStages = stagesIn(other);
  const [going, leaving] = order === 'MIGRATE' ? [otherStages, ownStages] : [ownStages, otherStages];
  return (element) => {
    const id = key(element.definition.name, element.definition.version);
    const [first, second] = element.migrationState === 'REMOVED' ? [leaving, going] : [going, leaving];
    return first.get(id) ?? second.get(id) ?? FALLBACK_STAGES;
  };
}
