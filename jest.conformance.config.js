/** Conformance: ONAP's own files from ../shared/reference/onap/, run against the real services. */
const base = require('./jest.config.js');

const integration = base.projects.find((project) => project.displayName === 'integration');

module.exports = {
  ...integration,
  displayName: 'conformance',
  testMatch: ['<rootDir>/test/conformance/**/*.conformance-spec.ts'],
  testTimeout: 120000,
  // Processes and connections the suites start are all stopped; should one leak anyway, the run must still end.
  forceExit: true,
};
