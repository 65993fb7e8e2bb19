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

/** The project names a run selects (`--selectProjects a b` or `--selectProjects=a`), or null for every project. */
function selectedProjects(argv) {
  const names = [];
  let selecting = false;
  for (const arg of argv) {
    if (arg.startsWith('--selectProjects=')) {
      names.push(...arg.slice('--selectProjects='.length).split(','));
      selecting = false;
    } else if (arg === '--selectProjects') {
      selecting = true;
    } else if (selecting && !arg.startsWith('-')) {
      names.push(arg);
    } else {
      selecting = false;
    }
  }
  return names.length > 0 ? names : null;
}

const selected = selectedProjects(process.argv);

module.exports = {
  // A project-level testTimeout is ignored by Jest 30; the services-backed suites need more than 5 s.
  testTimeout: 60000,
  // forceExit is a setting of the whole run. The unit project runs without it: its specs stop every timer and
  // handle they start, and a run that does not end by itself shows a leak. The services-backed suites stop every
  // process and connection they start; should one leak anyway, their run must still end (a CI run that never
  // exits is worse than a warning).
  forceExit: !(selected !== null && selected.every((name) => name === 'unit')),
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts', '<rootDir>/test/*.spec.ts'] },
    {
      ...shared,
      ...services,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,test}/**/*.int-spec.ts'],
      testTimeout: 60000,
    },
    { ...shared, ...services, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], testTimeout: 120000 },
  ],
};
