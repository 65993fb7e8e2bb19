import { InMemoryMessageBus } from '@acm/messaging';
import { ScriptedRuntime, deployOrder, primeOrder, stateChangeOrder } from '@acm/participant-sdk/testing';
import type { TestElement } from '@acm/participant-sdk/testing';

import { HELLO_ELEMENT_TYPE, HELLO_PARTICIPANT_ID, createHelloParticipant } from './hello-participant';

describe('hello participant (README example)', () => {
  it('greets on deploy, fails for nobody, and says goodbye later on undeploy', async () => {
    // The example uses the default logger; the failing deploy logs a warning on purpose.
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const bus = new InMemoryMessageBus();
    const runtime = new ScriptedRuntime({ bus });
    await runtime.start();
    const participant = createHelloParticipant(bus);
    await participant.start();
    try {
      const element: TestElement = {
        id: 'e1e1e1e1-3333-4444-8555-666677778888',
        definition: { name: 'org.example.Hello', version: '1.0.0' },
        typeName: HELLO_ELEMENT_TYPE.typeName,
        properties: { name: 'ACM' },
      };
      const order = { participantId: HELLO_PARTICIPANT_ID, compositionId: 'c0c0c0c0-1111-4222-8333-444455556666' };
      const instanceId = 'a1a1a1a1-2222-4333-8444-555566667777';
      await runtime.send(primeOrder({ ...order, elements: [element] }));
      await runtime.waitFor('PARTICIPANT_PRIME_ACK');

      await runtime.send(deployOrder({ ...order, instanceId, elements: [element] }));
      const deployed = await runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK');
      expect(deployed.automationCompositionResultMap[element.id]).toMatchObject({
        deployState: 'DEPLOYED',
        outProperties: { greeting: 'Hello, ACM!' },
      });

      const undeploy = stateChangeOrder({ ...order, instanceId, elements: [element], deployOrderedState: 'UNDEPLOY' });
      await runtime.send(undeploy);
      const undeployed = await runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (ack) => ack.responseTo === undeploy.messageId,
      );
      expect(undeployed).toMatchObject({ message: 'Said goodbye', stateChangeResult: 'NO_ERROR' });

      const nobody = deployOrder({ ...order, instanceId, elements: [{ ...element, properties: { name: 'nobody' } }] });
      await runtime.send(nobody);
      const failed = await runtime.waitFor(
        'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        (ack) => ack.responseTo === nobody.messageId,
      );
      expect(failed).toMatchObject({ stateChangeResult: 'FAILED' });
    } finally {
      await participant.stop();
      await runtime.close();
      await bus.close();
    }
  });
});
