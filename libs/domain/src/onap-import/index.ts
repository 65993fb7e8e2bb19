export * from './onap-rows';
export * from './onap-schema';
export * from './onap-mapping';
export * from './onap-import-plan';
