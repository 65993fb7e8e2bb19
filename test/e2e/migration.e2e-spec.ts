import { repoFile } from './lifecycle.scenarios';
import { describeMigrationOverKafka } from './migration.scenarios';

describeMigrationOverKafka({
  label: "the project's fixtures",
  read: repoFile,
  from: 'tosca/examples/sim-migration-from.yaml',
  to: 'tosca/examples/sim-migration-to.yaml',
  create: 'tosca/examples/instances/sim-migration-from.json',
  update: null,
  migrate: 'tosca/examples/instances/sim-migration-to.json',
  precheck: null,
  failedMigration: { when: 'before' },
});
