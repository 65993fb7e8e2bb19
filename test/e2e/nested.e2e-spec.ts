import { commissionedAndPrimed, simulatorStack } from '../support/e2e-stack';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const SLICE = 'acm.example.site.Slice';
const POLICIES = 'acm.example.site.Policies';

interface Element {
  definition: { name: string };
  deployState: string;
  participantId?: string | null;
  message?: string | null;
  properties: Record<string, unknown>;
  outProperties: Record<string, unknown>;
}

interface Instance {
  instanceId: string;
  compositionId: string;
  name: string;
  deployState: string;
  stateChangeResult: string;
  phase?: number;
  metadata?: Record<string, unknown> | null;
  elements: Record<string, Element>;
}

interface HistoryEvent {
  event: string;
  at: string;
  subjectId?: string;
  detail: Record<string, unknown>;
}

/**
 * A site that nests a network slice (tosca/examples/sim-nested-site.yaml and sim-nested-slice.yaml), the runtime and
 * the simulator as processes over Kafka and PostgreSQL: deploying the site makes and deploys the slice's child
 * instance, and the site's Slice element is DEPLOYED with the child's Gateway url; undeploying the site undeploys
 * Policies, then the child; the child cannot be ordered on its own; an UPDATE of the site's elementProperties updates
 * the child; a runtime killed while the child deploys finishes the site's DEPLOY after its restart.
 */
describe('nested compositions over Kafka (runtime + simulator processes)', () => {
  const stack = simulatorStack('nested');
  const { api, sim, restartRuntime } = stack;
  const url = `http://gw-${stack.suffix}.example:8080`;

  const instanceOf = async (compositionId: string, instanceId: string): Promise<Instance> =>
    (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200)).body as Instance;

  const settled = (compositionId: string, instanceId: string, what: (instance: Instance) => boolean) =>
    eventually('the order to settle', async () => {
      const current = await instanceOf(compositionId, instanceId);
      return what(current) ? current : undefined;
    });

  const historyOf = async (compositionId: string, instanceId: string): Promise<HistoryEvent[]> =>
    (
      (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)).body as {
        events: HistoryEvent[];
      }
    ).events;

  it('refuses a definition that nests an unknown one, naming the field', async () => {
    const unknown = '0f0f0f0f-0000-4000-8000-000000000000';
    const answer = await api()
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-nested-site.yaml').replace(/NESTEDCOMPOSITIONIDPLACEHOLDER/g, unknown))
      .expect(400);
    expect(JSON.stringify(answer.body)).toContain(
      `topology_template.node_templates.${SLICE}.properties.compositionId: must name a commissioned composition definition; ${unknown} is not one`,
    );
  });

  it('refuses a PRIME while the nested definition is not primed, and a nesting cycle with its path', async () => {
    // A site nesting another site reads no slice outputs and gives no slice properties.
    const site = (nested: string, name: string, compositionId?: string, ofSite = true): string =>
      readRepoFile('tosca/examples/sim-nested-site.yaml')
        .replace(ofSite ? /^ {8}outputs:\n[\s\S]*?name: site-1\n/m : /$^/, '')
        .replace(/NESTEDCOMPOSITIONIDPLACEHOLDER/g, nested)
        .replace(
          'name: acm.example.SimNestedSite\n',
          `name: ${name}\n${compositionId === undefined ? '' : `metadata:\n  compositionId: ${compositionId}\n`}`,
        );
    const commission = async (template: string): Promise<string> => {
      const answer = await api().post(`${API}/compositions`).set('Content-Type', 'application/yaml').send(template);
      expect(answer.body).toEqual({
        compositionId: expect.any(String),
        affectedAutomationCompositionDefinitions: expect.any(Array),
      });
      return (answer.body as { compositionId: string }).compositionId;
    };
    const sliceId = await commission(readRepoFile('tosca/examples/sim-nested-slice.yaml'));
    const outerId = await commission(site(sliceId, 'acm.example.Outer', undefined, false));
    const prime = await api().put(`${API}/compositions/${outerId}`).send({ primeOrder: 'PRIME' }).expect(400);
    expect(JSON.stringify(prime.body)).toContain(
      `Cannot prime acm.example.Outer 1.0.0: nested composition definition(s) not primed: acm.example.SimNestedSlice ` +
        `1.0.0 (${sliceId}); prime them first`,
    );
    // Outer nests the slice; Upper nests Outer; Outer changed to nest Upper closes a cycle.
    const upperId = await commission(site(outerId, 'acm.example.Upper'));
    const cycle = await api()
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(site(upperId, 'acm.example.Outer', outerId))
      .expect(400);
    expect(JSON.stringify(cycle.body)).toContain(
      `must not nest a definition that nests this one: acm.example.Outer 1.0.0 (${outerId}) -> ` +
        `acm.example.Upper 1.0.0 (${upperId}) -> acm.example.Outer 1.0.0 (${outerId})`,
    );

    // Both primed, then the slice deprimed: a DEPLOY of an Outer instance is refused, naming the slice.
    const primed = async (compositionId: string, order: 'PRIME' | 'DEPRIME', state: string): Promise<void> => {
      await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: order }).expect(202);
      await eventually(state, async () => {
        const found = (await api().get(`${API}/compositions/${compositionId}`).expect(200)).body as { state: string };
        return found.state === state ? true : undefined;
      });
    };
    await primed(sliceId, 'PRIME', 'PRIMED');
    await primed(outerId, 'PRIME', 'PRIMED');
    await primed(sliceId, 'DEPRIME', 'COMMISSIONED');
    const body = readRepoFile('tosca/examples/instances/sim-nested-site.json')
      .replace(/COMPOSITIONIDPLACEHOLDER/g, outerId)
      .replace(/5e1f0000-0000-4000-8000-00000003/g, '5e1f0000-0000-4000-8000-00000005')
      .replace('SimNestedSiteInstance', 'OuterInstance');
    const created = await api()
      .post(`${API}/compositions/${outerId}/instances`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const deploy = await api()
      .put(`${API}/compositions/${outerId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(400);
    expect(JSON.stringify(deploy.body)).toContain(
      `Cannot deploy an instance of acm.example.Outer 1.0.0: nested composition definition(s) not primed: ` +
        `acm.example.SimNestedSlice 1.0.0 (${sliceId}); prime them first`,
    );
  });

  it('deploys the child with the parent, gives its outputs to the parent, and undeploys it last', async () => {
    await sim().put(`${SIM_API}/parameters`).send({ deployProps: { url } }).expect(200);
    const sliceId = await commissionedAndPrimed(api, readRepoFile('tosca/examples/sim-nested-slice.yaml'));
    const siteId = await commissionedAndPrimed(
      api,
      readRepoFile('tosca/examples/sim-nested-site.yaml').replace(/NESTEDCOMPOSITIONIDPLACEHOLDER/g, sliceId),
    );
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-nested-site.json').replace(/COMPOSITIONIDPLACEHOLDER/g, siteId),
    ) as { elements: Record<string, Element> };
    const idOf = (name: string): string =>
      Object.entries(body.elements).find(([, element]) => element.definition.name === name)![0];
    const [slice, policies] = [idOf(SLICE), idOf(POLICIES)];
    // The instance's own property reads the slice too: the simulator keeps the instance properties it received.
    body.elements[policies]!.properties = { baseUrl: { get_attribute: [SLICE, 'url'] } };
    const created = await api().post(`${API}/compositions/${siteId}/instances`).send(body).expect(201);
    const siteInstance = (created.body as { instanceId: string }).instanceId;

    await api()
      .put(`${API}/compositions/${siteId}/instances/${siteInstance}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const deployed = await settled(
      siteId,
      siteInstance,
      (current) => current.deployState === 'DEPLOYED' && current.phase === undefined,
    );
    expect(deployed.stateChangeResult).toBe('NO_ERROR');
    expect(deployed.elements[slice]?.outProperties['url']).toBe(url);
    const childId = (deployed.elements[slice]?.outProperties['nestedComposition'] as { childInstanceId: string })
      .childInstanceId;

    // The child: an instance of the slice definition, deployed, naming its parent.
    const child = await instanceOf(sliceId, childId);
    expect(child.deployState).toBe('DEPLOYED');
    expect(child.name).toBe(`SimNestedSiteInstance.${SLICE}`);
    expect(child.metadata).toEqual({ nestedIn: { instanceId: siteInstance, elementId: slice } });
    expect(Object.values(child.elements).map((element) => element.deployState)).toEqual(['DEPLOYED', 'DEPLOYED']);
    // Network got the properties the parent's element gave it.
    const network = Object.values(child.elements).find(
      (element) => element.definition.name === 'acm.example.slice.Network',
    );
    expect(network?.properties).toMatchObject({ configurationEntities: { site: { name: 'site-1' } } });
    // Policies, a sibling, read the child's output through get_attribute.
    const atSimulator = (await sim().get(`${SIM_API}/instances/${siteInstance}`).expect(200)).body as Instance;
    expect(atSimulator.elements[policies]?.properties).toMatchObject({ baseUrl: url });
    // No participant runs the nested element.
    expect(typeof deployed.elements[slice]?.participantId).not.toBe('string');

    const parentEvents = await historyOf(siteId, siteInstance);
    expect(parentEvents.filter((event) => event.event.startsWith('CHILD_')).map((event) => event.detail)).toEqual([
      { elementId: slice, order: 'DEPLOY', childInstanceId: null },
      {
        elementId: slice,
        childInstanceId: childId,
        order: 'DEPLOY',
        result: true,
        message: `child instance ${childId} completed`,
      },
    ]);

    // Ordering the child directly is refused, naming the parent.
    const refused = await api()
      .put(`${API}/compositions/${sliceId}/instances/${childId}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(409);
    expect(JSON.stringify(refused.body)).toContain(`element ${slice} of instance ${siteInstance}`);
    await api().delete(`${API}/compositions/${sliceId}/instances/${childId}`).expect(409);
    const childBody = await instanceOf(sliceId, childId);
    await api().post(`${API}/compositions/${sliceId}/instances`).send(childBody).expect(409);

    // The instance graph links the element to its child.
    const graph = await api().get(`${API}/compositions/${siteId}/instances/${siteInstance}/graph`).expect(200);
    const nodes = (graph.body as { nodes: Array<{ id: string; nestedInstanceId?: string }> }).nodes;
    expect(nodes.map((node) => [node.id, node.nestedInstanceId])).toEqual(
      expect.arrayContaining([
        [slice, childId],
        [policies, undefined],
      ]),
    );
    // With depth=1 the child's elements join the graph, prefixed with the element's name, with their edges.
    const deep = await api().get(`${API}/compositions/${siteId}/instances/${siteInstance}/graph?depth=1`).expect(200);
    const deepGraph = deep.body as {
      nodes: Array<{ id: string; name: string; nestedIn?: string }>;
      edges: Array<{ from: string; to: string }>;
    };
    const childElementIds = Object.keys(child.elements).sort();
    expect(
      deepGraph.nodes
        .filter((node) => node.nestedIn === slice)
        .map((node) => node.id)
        .sort(),
    ).toEqual(childElementIds);
    expect(
      deepGraph.nodes
        .filter((node) => node.nestedIn === slice)
        .map((node) => node.name)
        .sort(),
    ).toEqual([`${SLICE}/acm.example.slice.Gateway`, `${SLICE}/acm.example.slice.Network`]);
    const childGraph = await api().get(`${API}/compositions/${sliceId}/instances/${childId}/graph`).expect(200);
    expect(deepGraph.edges).toEqual([...graph.body.edges, ...childGraph.body.edges]);
    expect(deepGraph.nodes).toHaveLength(nodes.length + childElementIds.length);
    const badDepth = await api()
      .get(`${API}/compositions/${siteId}/instances/${siteInstance}/graph?depth=-1`)
      .expect(400);
    expect(JSON.stringify(badDepth.body)).toContain('depth');

    // Unlock and lock reach the child.
    for (const [order, lockState] of [
      ['UNLOCK', 'UNLOCKED'],
      ['LOCK', 'LOCKED'],
    ] as const) {
      await api().put(`${API}/compositions/${siteId}/instances/${siteInstance}`).send({ lockOrder: order }).expect(202);
      await settled(
        siteId,
        siteInstance,
        (current) =>
          (current as Instance & { lockState: string }).lockState === lockState && current.phase === undefined,
      );
      const lockedChild = (await instanceOf(sliceId, childId)) as Instance & { lockState: string };
      expect([lockedChild.lockState, lockedChild.stateChangeResult]).toEqual([lockState, 'NO_ERROR']);
    }

    // An UPDATE of the parent that changes the nested element's elementProperties updates the child's elements.
    const beforeUpdate = await instanceOf(siteId, siteInstance);
    const site2 = { configurationEntities: { site: { name: 'site-2' } } };
    await api()
      .post(`${API}/compositions/${siteId}/instances`)
      .send({
        instanceId: siteInstance,
        compositionId: siteId,
        name: beforeUpdate.name,
        version: (beforeUpdate as Instance & { version: string }).version,
        elements: {
          [slice]: {
            ...beforeUpdate.elements[slice],
            properties: { elementProperties: { 'acm.example.slice.Network': site2 } },
          },
        },
      })
      .expect(200);
    const updated = await settled(
      siteId,
      siteInstance,
      (current) => current.deployState === 'DEPLOYED' && current.phase === undefined,
    );
    expect(updated.stateChangeResult).toBe('NO_ERROR');
    const childAfterUpdate = await instanceOf(sliceId, childId);
    const networkAfterUpdate = Object.values(childAfterUpdate.elements).find(
      (element) => element.definition.name === 'acm.example.slice.Network',
    );
    expect([childAfterUpdate.deployState, childAfterUpdate.stateChangeResult]).toEqual(['DEPLOYED', 'NO_ERROR']);
    expect(networkAfterUpdate?.properties).toMatchObject(site2);
    const updateEvents = (await historyOf(siteId, siteInstance)).filter((event) => event.event.startsWith('CHILD_'));
    expect(updateEvents.slice(-2).map((event) => [event.event, event.detail['order'], event.detail['result']])).toEqual(
      [
        ['CHILD_ORDERED', 'UPDATE', undefined],
        ['CHILD_ENDED', 'UPDATE', true],
      ],
    );

    // Undeploy: Policies (phase 1) first, then the child, then the site is UNDEPLOYED.
    await api()
      .put(`${API}/compositions/${siteId}/instances/${siteInstance}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await settled(
      siteId,
      siteInstance,
      (current) => current.deployState === 'UNDEPLOYED' && current.phase === undefined,
    );
    expect((await instanceOf(sliceId, childId)).deployState).toBe('UNDEPLOYED');
    // The child's history names its parent for each order the parent gave it.
    const childEvents = (await historyOf(sliceId, childId)).filter((event) => event.event === 'PARENT_ORDERED');
    expect(childEvents.map((event) => event.detail)).toEqual(
      ['DEPLOY', 'UNLOCK', 'LOCK', 'UPDATE', 'UNDEPLOY'].map((order) => ({
        parentInstanceId: siteInstance,
        parentElementId: slice,
        order,
      })),
    );
    expect((childEvents[0] as HistoryEvent & { actor: unknown }).actor).toEqual({
      kind: 'runtime',
      rule: 'nested-composition',
    });
    const all = await historyOf(siteId, siteInstance);
    const sinceUndeploy = all.slice(all.map((event) => event.event).lastIndexOf('ORDERED'));
    const undeploy = sinceUndeploy.filter(
      (event) =>
        (event.event === 'ELEMENT_RESULT' && JSON.stringify(event.detail).includes(policies)) ||
        event.event === 'CHILD_ORDERED',
    );
    expect(undeploy.map((event) => event.event)).toEqual(['ELEMENT_RESULT', 'CHILD_ORDERED']);

    // An UPDATE of the undeployed site, then a DEPLOY: the child made before is deployed with the new properties.
    const undeployedSite = await instanceOf(siteId, siteInstance);
    const site3 = { configurationEntities: { site: { name: 'site-3' } } };
    await api()
      .post(`${API}/compositions/${siteId}/instances`)
      .send({
        ...undeployedSite,
        elements: {
          ...undeployedSite.elements,
          [slice]: {
            ...undeployedSite.elements[slice],
            properties: { elementProperties: { 'acm.example.slice.Network': site3 } },
          },
        },
      })
      .expect(200);
    await api()
      .put(`${API}/compositions/${siteId}/instances/${siteInstance}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const redeployed = await settled(
      siteId,
      siteInstance,
      (current) => current.deployState === 'DEPLOYED' && current.phase === undefined,
    );
    expect(redeployed.stateChangeResult).toBe('NO_ERROR');
    const redeployedChild = await instanceOf(sliceId, childId);
    expect(redeployedChild.deployState).toBe('DEPLOYED');
    expect(
      Object.values(redeployedChild.elements).find((element) => element.definition.name === 'acm.example.slice.Network')
        ?.properties,
    ).toMatchObject(site3);
    await api()
      .put(`${API}/compositions/${siteId}/instances/${siteInstance}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await settled(
      siteId,
      siteInstance,
      (current) => current.deployState === 'UNDEPLOYED' && current.phase === undefined,
    );

    // Delete reaches the child: it is gone with its parent.
    await api().delete(`${API}/compositions/${siteId}/instances/${siteInstance}`).expect(202);
    await eventually('the site and its child deleted', async () => {
      const site = await api().get(`${API}/compositions/${siteId}/instances/${siteInstance}`);
      const gone = await api().get(`${API}/compositions/${sliceId}/instances/${childId}`);
      return site.status === 404 && gone.status === 404 ? true : undefined;
    });
  });
  it('fails the nested element, naming the child, when the child fails', async () => {
    const sliceId = await commissionedAndPrimed(
      api,
      readRepoFile('tosca/examples/sim-nested-slice.yaml').replace(
        'name: acm.example.SimNestedSlice\n',
        'name: acm.example.FailingSlice\n',
      ),
    );
    const siteId = await commissionedAndPrimed(
      api,
      readRepoFile('tosca/examples/sim-nested-site.yaml')
        .replace(/NESTEDCOMPOSITIONIDPLACEHOLDER/g, sliceId)
        .replace('name: acm.example.SimNestedSite\n', 'name: acm.example.FailingSite\n'),
    );
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-nested-site.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, siteId)
        .replace(/5e1f0000-0000-4000-8000-00000003/g, '5e1f0000-0000-4000-8000-00000004')
        .replace('SimNestedSiteInstance', 'FailingSiteInstance'),
    ) as { elements: Record<string, Element> };
    const slice = Object.entries(body.elements).find(([, element]) => element.definition.name === SLICE)![0];
    const created = await api().post(`${API}/compositions/${siteId}/instances`).send(body).expect(201);
    const siteInstance = (created.body as { instanceId: string }).instanceId;
    await sim().put(`${SIM_API}/parameters`).send({ deploySuccess: false }).expect(200);
    try {
      await api()
        .put(`${API}/compositions/${siteId}/instances/${siteInstance}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
      const failed = await settled(siteId, siteInstance, (current) => current.stateChangeResult === 'FAILED');
      const state = failed.elements[slice]?.outProperties['nestedComposition'] as Record<string, unknown>;
      expect(state).toMatchObject({ order: 'DEPLOY', outcome: 'FAILED' });
      const childId = state['childInstanceId'] as string;
      expect((await instanceOf(sliceId, childId)).stateChangeResult).toBe('FAILED');
      expect(failed.elements[slice]?.message).toMatch(
        new RegExp(`^child ${childId} failed DEPLOY: acm\\.example\\.slice\\.Network: `),
      );
    } finally {
      await sim().put(`${SIM_API}/parameters`).send({ deploySuccess: true }).expect(200);
    }
  });
  it('completes the parent after a SIGKILL of the runtime while the child deploys, the child ordered once', async () => {
    const sliceId = await commissionedAndPrimed(
      api,
      readRepoFile('tosca/examples/sim-nested-slice.yaml').replace(
        'name: acm.example.SimNestedSlice\n',
        'name: acm.example.RestartSlice\n',
      ),
    );
    const siteId = await commissionedAndPrimed(
      api,
      readRepoFile('tosca/examples/sim-nested-site.yaml')
        .replace(/NESTEDCOMPOSITIONIDPLACEHOLDER/g, sliceId)
        .replace('name: acm.example.SimNestedSite\n', 'name: acm.example.RestartSite\n'),
    );
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-nested-site.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, siteId)
        .replace(/5e1f0000-0000-4000-8000-00000003/g, '5e1f0000-0000-4000-8000-00000006')
        .replace('SimNestedSiteInstance', 'RestartSiteInstance'),
    ) as { elements: Record<string, Element> };
    const slice = Object.entries(body.elements).find(([, element]) => element.definition.name === SLICE)![0];
    const created = await api().post(`${API}/compositions/${siteId}/instances`).send(body).expect(201);
    const siteInstance = (created.body as { instanceId: string }).instanceId;
    // Slow deploys, so the kill lands while the child deploys.
    await sim().put(`${SIM_API}/parameters`).send({ deployTimerMs: 1500, deployProps: { url } }).expect(200);
    try {
      await api()
        .put(`${API}/compositions/${siteId}/instances/${siteInstance}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
      // The slice definition has one instance here: the site's child, once made.
      const childId = await eventually('the child deploying', async () => {
        const list = (await api().get(`${API}/compositions/${sliceId}/instances`).expect(200)).body as {
          automationCompositionList: Array<{ instanceId: string; deployState: string }>;
        };
        const child = list.automationCompositionList[0];
        return child?.deployState === 'DEPLOYING' ? child.instanceId : undefined;
      });
      await restartRuntime();
      const deployed = await settled(
        siteId,
        siteInstance,
        (current) => current.deployState === 'DEPLOYED' && current.phase === undefined,
      );
      expect(deployed.stateChangeResult).toBe('NO_ERROR');
      expect(deployed.elements[slice]?.outProperties['url']).toBe(url);
      expect(deployed.elements[slice]?.outProperties['nestedComposition']).toMatchObject({
        outcome: 'COMPLETED',
        childInstanceId: childId,
      });
      expect((await instanceOf(sliceId, childId)).deployState).toBe('DEPLOYED');
      const parentOrders = (await historyOf(sliceId, childId)).filter((event) => event.event === 'PARENT_ORDERED');
      expect(parentOrders.map((event) => event.detail['order'])).toEqual(['DEPLOY']);
    } finally {
      await sim().put(`${SIM_API}/parameters`).send({}).expect(200);
    }
  });
});
