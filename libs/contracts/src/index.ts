/**
 * @acm/contracts — the participant protocol's wire format (message types, topics, codec, accept rule),
 * shared by the runtime and the participant SDK so neither defines a message twice.
 */
export * from './message-types';
export * from './structures';
export * from './messages';
export * from './codec';
export * from './accept';
export * from './peek';
export { isUuid } from './validation/parsers';
export { CONTRACT_EXAMPLES, EXAMPLE_IDS, exampleJson, exampleObject } from './testing/examples';
export type { ContractExampleName } from './testing/examples';
