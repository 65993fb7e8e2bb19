import type {
  CompositionDefinition,
  DefinitionOrder,
  DefinitionQuery,
  JsonObject,
  NodeTemplateState,
  PrimeOrder,
  ReadModel,
} from '@acm/domain';
import {
  Clock,
  DEFAULT_PROJECT,
  DEFINITION_ORDER_EFFECT,
  DomainError,
  IdGenerator,
  OperationSessions,
  ReadModels,
  UnitOfWork,
  assertControlSettings,
  assertObservationSettings,
  assertDefinitionEditable,
  assertNestedPrimed,
  assertNesting,
  assertParticipantsOnline,
  assertHealthGates,
  assertWaitConditionSettings,
  assignParticipants,
  elementStatesForOrder,
  isNestedCompositionTemplate,
  isWaitConditionTemplate,
  resolvePrimeOrder,
} from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import { compositionIdOf, withCompositionId } from '@acm/tosca';
import type { ServiceTemplate } from '@acm/tosca';
import { Injectable } from '@nestjs/common';
import { OperationEngine } from '../engine/operation-engine';
import { TemplateReader } from '../engine/template-reader';
import { loadNestedDefinitions, nestingNodeOf } from './nesting';

export interface CommissioningResponse {
  compositionId: string;
  affectedAutomationCompositionDefinitions: Array<{ name: string; version: string }>;
}

/** How many definitions' projects `projectOf` remembers. */
const REMEMBERED_PROJECTS = 10_000;

/** ONAP's defaults for a service template that names no name or version. */
const DEFAULT_TEMPLATE_NAME = 'ToscaServiceTemplateSimple';
const DEFAULT_TEMPLATE_VERSION = '1.0.0';

function notFound(compositionId: string): DomainError {
  return new DomainError('NOT_FOUND', `Automation composition definition ${compositionId} not found`, {
    compositionId,
  });
}

/** Wait conditions and nested compositions are run by the runtime itself: no participant primes them. */
function isRunByRuntime(element: { readonly types?: readonly string[] }): boolean {
  return isWaitConditionTemplate(element) || isNestedCompositionTemplate(element);
}

function nodeTemplatesOf(template: ServiceTemplate): Array<{ name: string; version: string }> {
  const nodeTemplates = template.topology_template?.node_templates ?? {};
  return Object.entries(nodeTemplates).map(([name, nodeTemplate]) => ({
    name,
    version: typeof nodeTemplate.version === 'string' ? nodeTemplate.version : '0.0.0',
  }));
}

/** Commissioning, update, priming and deletion of composition definitions (ONAP CommissioningProvider). */
@Injectable()
export class CommissioningService {
  private readonly projects = new Map<string, string>();

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly templates: TemplateReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly engine: OperationEngine,
    private readonly sessions: OperationSessions,
    private readonly reads: ReadModels,
  ) {}

  /**
   * Creates a definition in `project`, or replaces one when the template's metadata names its compositionId (which
   * must then be in `project`: a definition stays in its project).
   */
  async commission(
    body: unknown,
    project: string = DEFAULT_PROJECT,
  ): Promise<{ created: boolean; response: CommissioningResponse }> {
    const info = this.templates.read(body);
    assertControlSettings(info.metadata, 'metadata');
    assertWaitConditionSettings(info.elements.filter(isWaitConditionTemplate));
    assertHealthGates(info.elements.map((element) => ({ name: element.name, metadata: element.gateMetadata ?? {} })));
    assertObservationSettings(body as JsonObject);
    const template = body as ServiceTemplate;
    const existingId = compositionIdOf(template);
    const compositionId = existingId?.toLowerCase() ?? this.ids.uuid();
    await this.assertNestingOf(compositionId, template, info);
    if (existingId !== undefined) {
      return { created: false, response: await this.update(compositionId, template, info, project) };
    }
    const stored = withCompositionId(template, compositionId);
    const definition: CompositionDefinition = {
      compositionId,
      name: typeof template.name === 'string' ? template.name : DEFAULT_TEMPLATE_NAME,
      version: typeof template.version === 'string' ? template.version : DEFAULT_TEMPLATE_VERSION,
      serviceTemplate: stored,
      state: 'COMMISSIONED',
      stateChangeResult: 'NO_ERROR',
      lastMsg: this.clock.now(),
      elementStateMap: this.freshElementStates(info),
      revisionId: this.ids.uuid(),
      project,
    };
    await this.unitOfWork.transaction((store) => store.definitions.insert(definition));
    return {
      created: true,
      response: { compositionId, affectedAutomationCompositionDefinitions: nodeTemplatesOf(stored) },
    };
  }

  private async update(
    compositionId: string,
    template: ServiceTemplate,
    info: CompositionTemplateInfo,
    project: string,
  ): Promise<CommissioningResponse> {
    return this.unitOfWork.transaction(async (store) => {
      const found = await store.definitions.find(compositionId);
      if (!found) {
        throw notFound(compositionId);
      }
      const storedProject = found.value.project ?? DEFAULT_PROJECT;
      if (storedProject !== project) {
        throw new DomainError(
          'VALIDATION_FAILED',
          `project: the definition ${compositionId} is in project ${storedProject}, not ${project}; a definition stays in its project`,
          { compositionId },
        );
      }
      await this.assertUnused(store, compositionId, 'updated');
      assertDefinitionEditable(found.value, 'update');
      const stored = withCompositionId(template, compositionId);
      await store.definitions.update(
        {
          ...found.value,
          name: typeof template.name === 'string' ? template.name : DEFAULT_TEMPLATE_NAME,
          version: typeof template.version === 'string' ? template.version : DEFAULT_TEMPLATE_VERSION,
          serviceTemplate: stored,
          stateChangeResult: 'NO_ERROR',
          lastMsg: this.clock.now(),
          elementStateMap: this.freshElementStates(info),
          revisionId: this.ids.uuid(),
        },
        found.version,
      );
      return { compositionId, affectedAutomationCompositionDefinitions: nodeTemplatesOf(stored) };
    });
  }

  async get(compositionId: string): Promise<CompositionDefinition> {
    const found = await this.reads.read((model) => model.definitions.find(compositionId));
    if (!found) {
      throw notFound(compositionId);
    }
    return found.value;
  }

  /**
   * The project of a definition, null for one that does not exist. A definition never changes project, so answers
   * are remembered (a bounded number; a deleted definition's entry only makes its routes answer 404 in its project).
   */
  async projectOf(compositionId: string): Promise<string | null> {
    const known = this.projects.get(compositionId);
    if (known !== undefined) {
      return known;
    }
    const found = await this.reads.read((model) => model.definitions.find(compositionId));
    if (!found) {
      return null;
    }
    const project = found.value.project ?? DEFAULT_PROJECT;
    if (this.projects.size >= REMEMBERED_PROJECTS) {
      this.projects.clear();
    }
    this.projects.set(compositionId, project);
    return project;
  }

  list(query: DefinitionQuery): Promise<CompositionDefinition[]> {
    return this.reads.read((model) => model.definitions.list(query));
  }

  /** Validates a prime or deprime order and records PRIMING/DEPRIMING; participants are told by the engine. */
  async order(compositionId: string, primeOrder: PrimeOrder): Promise<CompositionDefinition> {
    return this.unitOfWork.transaction(async (store) => {
      const found = await store.definitions.find(compositionId);
      if (!found) {
        throw notFound(compositionId);
      }
      const definition = found.value;
      const { order, assignment } = await this.checkOrder(store, definition, primeOrder);
      const during = DEFINITION_ORDER_EFFECT[order].during;
      const runByRuntime = this.templates.readDefinition(definition).elements.filter(isRunByRuntime);
      const elementStateMap = elementStatesForOrder(
        definition.elementStateMap,
        order,
        assignment,
        new Set(runByRuntime.map((element) => element.name)),
      );
      const updated: CompositionDefinition = {
        ...definition,
        state: during,
        stateChangeResult: 'NO_ERROR',
        elementStateMap,
        revisionId: this.ids.uuid(),
        lastMsg: this.clock.now(),
      };
      await store.definitions.update(updated, found.version);
      const session = this.sessions.join(store, []);
      await this.engine.startDefinitionOrder(session, updated, order);
      await session.commit();
      return updated;
    });
  }

  /**
   * The checks of a prime or deprime before anything changes, and the participant each element node template goes
   * to; the order and its plan (PlanService) run the same ones, so they refuse alike.
   */
  async checkOrder(
    store: ReadModel,
    definition: CompositionDefinition,
    primeOrder: PrimeOrder,
  ): Promise<{ order: DefinitionOrder; assignment: Map<string, string> }> {
    await this.assertUnused(store, definition.compositionId, primeOrder === 'DEPRIME' ? 'deprimed' : 'primed');
    const order = resolvePrimeOrder(primeOrder, definition);
    const info = this.templates.readDefinition(definition);
    if (order === 'PRIME') {
      const root = nestingNodeOf({ ...definition, primed: false }, info);
      const nested = await loadNestedDefinitions(
        root,
        async (id) => (await store.definitions.find(id))?.value ?? null,
        this.templates,
      );
      assertNestedPrimed(root, (id) => nested.get(id), `prime ${definition.name} ${definition.version}`);
    }
    const participants = await store.participants.list();
    const runByParticipant = new Set(
      info.elements.filter((element) => !isRunByRuntime(element)).map((element) => element.name),
    );
    const assignment =
      order === 'PRIME' ||
      Object.entries(definition.elementStateMap).some(
        ([name, state]) => runByParticipant.has(name) && state.participantId === null,
      )
        ? assignParticipants(
            info.elements.filter((element) => !isRunByRuntime(element)),
            participants,
          )
        : new Map(
            Object.entries(definition.elementStateMap)
              .filter(([name]) => runByParticipant.has(name))
              .map(([name, state]) => [name, state.participantId ?? '']),
          );
    assertParticipantsOnline(
      assignment.values(),
      new Map(participants.map((participant) => [participant.participantId, participant])),
    );
    return { order, assignment };
  }

  async delete(compositionId: string): Promise<CommissioningResponse> {
    return this.unitOfWork.transaction(async (store) => {
      const found = await store.definitions.find(compositionId);
      if (!found) {
        throw notFound(compositionId);
      }
      await this.assertUnused(store, compositionId, 'deleted');
      assertDefinitionEditable(found.value, 'delete');
      await store.definitions.delete(compositionId, found.version);
      return {
        compositionId,
        affectedAutomationCompositionDefinitions: nodeTemplatesOf(found.value.serviceTemplate as ServiceTemplate),
      };
    });
  }

  /** A definition's nested compositions name commissioned definitions, their elements, and form no cycle. */
  private async assertNestingOf(
    compositionId: string,
    template: ServiceTemplate,
    info: CompositionTemplateInfo,
  ): Promise<void> {
    const candidate = nestingNodeOf(
      {
        compositionId,
        name: typeof template.name === 'string' ? template.name : DEFAULT_TEMPLATE_NAME,
        version: typeof template.version === 'string' ? template.version : DEFAULT_TEMPLATE_VERSION,
        primed: false,
      },
      info,
    );
    if (candidate.nested.length === 0) {
      return;
    }
    const stored = await this.reads.read((model) =>
      loadNestedDefinitions(candidate, async (id) => (await model.definitions.find(id))?.value ?? null, this.templates),
    );
    assertNesting(candidate, (id) => stored.get(id));
  }

  private async assertUnused(store: ReadModel, compositionId: string, action: string): Promise<void> {
    const count = await store.instances.countUsingDefinition(compositionId);
    if (count > 0) {
      throw new DomainError(
        'ORDER_NOT_ALLOWED',
        `There are instances, composition definition ${compositionId} cannot be ${action}: ` +
          `${count} instance(s) use it; delete them first`,
        { compositionId, instances: count },
      );
    }
  }

  private freshElementStates(info: CompositionTemplateInfo): Record<string, NodeTemplateState> {
    return Object.fromEntries(
      info.elements.map((element): [string, NodeTemplateState] => [
        element.name,
        {
          nodeTemplateStateId: this.ids.uuid(),
          participantId: null,
          nodeTemplateId: { name: element.name, version: element.version },
          state: 'COMMISSIONED',
          message: null,
          outProperties: {},
        },
      ]),
    );
  }
}
