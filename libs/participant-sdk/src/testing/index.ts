/** @acm/participant-sdk/testing — helpers for testing participants, and the SDK's worked examples. */
export {
  FakeResourceService,
  PROVIDER_PARTICIPANT_ID,
  createResourceProviderParticipant,
} from '../examples/resource-provider-participant';
