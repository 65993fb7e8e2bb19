/**
 * Fault suite (`npm run test:faults`): scripted, bounded scenarios on the real broker and database,
 * each asserting 0 lost, 0 stuck, 0 duplicated from the runtime's history and the simulator's log.
 * Scenarios that stop a broker or a database start their own instance on other ports, so they never
 * disturb the shared services of the other suites. Suites run one at a time (they load the machine).
 */
const base = require('./jest.config.js');

const integration = base.projects.find((project) => project.displayName === 'integration');

module.exports = {
  ...integration,
  displayName: 'faults',
  testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
  testTimeout: 300000,
  maxWorkers: 1,
  forceExit: true,
};
