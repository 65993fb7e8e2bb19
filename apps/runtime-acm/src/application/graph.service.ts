import type { AutomationComposition, CompositionDefinition, ReadModel } from '@acm/domain';
import {
  DomainError,
  ObservationStore,
  ReadModels,
  gateWaitingReason,
  healthGateOf,
  storedNestedStateOf,
} from '@acm/domain';
import type { CompositionGraph, GraphFormat } from '@acm/tosca';
import { compositionGraph, toDot, toMermaid, withNestedGraph } from '@acm/tosca';
import { Injectable } from '@nestjs/common';
import { definitionNotFound, instanceNotFound } from './not-found';
import { TemplateReader } from '../engine/template-reader';

/** A graph rendered in the format asked for: JSON as an object, DOT and Mermaid as text. */
export type RenderedGraph =
  | { readonly format: 'json'; readonly graph: CompositionGraph }
  | { readonly format: 'dot' | 'mermaid'; readonly text: string };

function render(graph: CompositionGraph, format: GraphFormat): RenderedGraph {
  switch (format) {
    case 'json':
      return { format, graph };
    case 'dot':
      return { format, text: toDot(graph) };
    case 'mermaid':
      return { format, text: toMermaid(graph) };
  }
}

/** Beyond ONAP (`tofu graph`): a composition's elements by start phase with their dependency edges. */
@Injectable()
export class GraphService {
  constructor(
    private readonly reads: ReadModels,
    private readonly templates: TemplateReader,
    private readonly observations: ObservationStore,
  ) {}

  ofDefinition(compositionId: string, format: GraphFormat): Promise<RenderedGraph> {
    return this.reads.read(async (store) => {
      const definition = await this.definition(store, compositionId);
      return render(compositionGraph(this.templates.readDefinition(definition)), format);
    });
  }

  /**
   * The instance's elements with their live `deployState/lockState`; with `depth` > 0, each nested-composition
   * element's child instance folded in, `depth` levels down.
   */
  ofInstance(compositionId: string, instanceId: string, format: GraphFormat, depth = 0): Promise<RenderedGraph> {
    return this.reads.read(async (store) => {
      const found = await store.instances.find(instanceId);
      if (!found) {
        throw instanceNotFound(instanceId);
      }
      const instance = found.value;
      if (instance.compositionId !== compositionId && instance.compositionTargetId !== compositionId) {
        throw new DomainError('ID_MISMATCH', `${instance.compositionId} do not match with ${compositionId}`, {
          instanceId,
        });
      }
      return render(await this.instanceGraph(store, instance, depth), format);
    });
  }

  private async instanceGraph(
    store: ReadModel,
    instance: AutomationComposition,
    depth: number,
  ): Promise<CompositionGraph> {
    const definition = await this.definition(store, instance.compositionId);
    const info = this.templates.readDefinition(definition);
    const running = await store.operations.findRunning(instance.instanceId);
    const gates = running?.targetKind === 'INSTANCE' ? (running.control.gates ?? {}) : {};
    // As GET shows it: no health at all until a participant observed one of the instance's elements.
    const observed = await this.observations.ofInstance(instance.instanceId);
    const observedAny = Object.keys(observed).length > 0;
    const elements = Object.values(instance.elements).map((element) => {
      const child = storedNestedStateOf(element.outProperties)?.childInstanceId ?? null;
      const gate = gates[element.id];
      const rules = healthGateOf(
        info.elements.find((template) => template.name === element.definition.name)?.gateMetadata ?? {},
      ).gate;
      return {
        id: element.id,
        name: element.definition.name,
        state: `${element.deployState}/${element.lockState}`,
        ...(child === null ? {} : { nestedInstanceId: child }),
        ...(gate === undefined || rules === undefined
          ? {}
          : { gateState: gateWaitingReason(element.definition.name, rules, gate) }),
        ...(observedAny ? { health: observed[element.id]?.health.state ?? 'Unknown' } : {}),
      };
    });
    let graph = compositionGraph(info, elements);
    if (depth > 0) {
      for (const element of elements) {
        // A child deleted since (the parent's DELETE removes it) has nothing left to show.
        const child =
          element.nestedInstanceId === undefined ? null : await store.instances.find(element.nestedInstanceId);
        if (child) {
          graph = withNestedGraph(graph, element.id, await this.instanceGraph(store, child.value, depth - 1));
        }
      }
    }
    return graph;
  }

  private async definition(store: ReadModel, compositionId: string): Promise<CompositionDefinition> {
    const found = await store.definitions.find(compositionId);
    if (!found) {
      throw definitionNotFound(compositionId);
    }
    return found.value;
  }
}
