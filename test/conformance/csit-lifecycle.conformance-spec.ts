import { describeLifecycleOverKafka } from '../e2e/lifecycle.scenarios';
import { onapFile } from './onap-files';

/** ONAP's own csit files, unchanged, through the same process-level scenarios as the project's e2e suite. */
describeLifecycleOverKafka({
  label: "ONAP's csit files",
  read: onapFile,
  simple: { definition: 'csit-data/ac-definition-simple.yaml', instance: 'csit-data/ac-instance-simple.yaml' },
  multiple: { definition: 'csit-data/ac-definition-multiple.yaml', instance: 'csit-data/ac-instance-multiple.yaml' },
  timeout: { definition: 'csit-data/ac-definition-timeout.yaml' },
  extended: false,
});
