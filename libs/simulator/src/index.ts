/**
 * @acm/simulator — ONAP's simulator participant built on the SDK: its element handler, settings, control
 * API and process configuration. The simulator app runs it on Kafka; the runtime embeds it on its
 * in-process bus.
 */
export * from './simulator';
export * from './simulator-handler';
export * from './sim-config';
export * from './control-api';
export * from './config';
export * from './drop-switch';
export * from './sim-observations';
