/** Jest projects: unit (pure, no services), integration (real PostgreSQL / Kafka), e2e (whole processes). */
const fs = require('node:fs');

const swcConfig = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
delete swcConfig.$schema;

// ACM_TEST_SERVICES=containers starts PostgreSQL and Kafka with testcontainers for the suites that need them.
const services = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', swcConfig] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@acm/([^/]+)/testing$': '<rootDir>/libs/$1/src/testing/index.ts',
    '^@acm/participant-sdk/provider$': '<rootDir>/libs/participant-sdk/src/provider/index.ts',
    '^@acm/(.*)$': '<rootDir>/libs/$1/src/index.ts',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  // A project-level testTimeout is ignored by Jest 30; the services-backed suites need more than 5 s.
  testTimeout: 60000,
  // Suites stop every process and connection they start; should one leak anyway, the run must still end
  // (a CI run that never exits is worse than a warning).
  forceExit: true,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts', '<rootDir>/test/*.spec.ts'] },
    {
      ...shared,
      ...services,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,test}/**/*.int-spec.ts'],
      testTimeout: 60000,
      // Suites stop every process and connection they start; should one leak anyway, the run must still end
      // (a CI run that never exits is worse than a warning).
      forceExit: true,
    },
    { ...shared, ...services, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], testTimeout: 120000 },
  ],
};
