import { describeLifecycleOverKafka, repoFile } from './lifecycle.scenarios';

describeLifecycleOverKafka({
  label: "the project's fixtures",
  read: repoFile,
  simple: {
    definition: 'tosca/examples/sim-single-element.yaml',
    instance: 'tosca/examples/instances/sim-single-element.json',
  },
  multiple: {
    definition: 'tosca/examples/sim-multiple-types.yaml',
    instance: 'tosca/examples/instances/sim-multiple-types.json',
  },
  timeout: { definition: 'tosca/examples/sim-timeout.yaml' },
  extended: true,
});
