export * from './states';
export * from './errors';
export * from './model';
export * from './definition/definition-lifecycle';
export * from './instance/instance-lifecycle';
export * from './instance/instance-elements';
