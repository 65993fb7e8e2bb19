/**
 * @acm/participant-sdk/testing — test doubles for participant authors (a scripted runtime, manual timers,
 * ONAP-shaped order builders) and the SDK's worked examples. Left out of the production entry point.
 */
export { ManualTimers, ScriptedRuntime } from './scripted-runtime';
export type { ScriptedRuntimeOptions } from './scripted-runtime';
export { deployOrder, deprimeOrder, primeOrder, stateChangeOrder } from './orders';
export type { OrderBase, OrderJson, TestElement } from './orders';
export {
  HELLO_ELEMENT_TYPE,
  HELLO_PARTICIPANT_ID,
  createHelloParticipant,
  helloHandler,
} from '../examples/hello-participant';
export {
  FAKE_RESOURCE_ELEMENT_TYPE,
  FakeResourceService,
  KEY_PROPERTIES,
  PROVIDER_PARTICIPANT_ID,
  createResourceProviderParticipant,
} from '../examples/resource-provider-participant';
export type { FakeResource, ResourceProviderParticipantOptions } from '../examples/resource-provider-participant';
