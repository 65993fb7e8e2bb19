import { describeMigrationOverKafka } from '../e2e/migration.scenarios';
import { onapFile } from './onap-files';

/** ONAP's csit migration files, unchanged, through the project's update / rollback / migration scenarios. */
describeMigrationOverKafka({
  label: "ONAP's csit migration files",
  read: onapFile,
  from: 'csit-data/ac-definition-migration-from.yaml',
  to: 'csit-data/ac-definition-migration-to.yaml',
  create: 'csit-data/ac-instance-migration-from.yaml',
  update: 'csit-data/ac-instance-update.yaml',
  migrate: 'csit-data/ac-instance-migration-to.yaml',
  precheck: 'csit-data/ac-instance-precheck-migration.yaml',
  failedMigration: { when: 'after', body: 'csit-data/ac-instance-migration-fail.yaml' },
});
