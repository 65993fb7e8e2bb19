/** The Helm chart's checks: they need a helm binary, so they run from scripts/check-helm.sh only. */
const base = require('./jest.config.js');

const unit = base.projects.find((project) => project.displayName === 'unit');

module.exports = {
  testTimeout: 120000,
  projects: [{ ...unit, displayName: 'helm', testMatch: ['<rootDir>/test/*.helm-spec.ts'] }],
};
