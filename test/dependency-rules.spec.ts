/**
 * Shows that every rule of .dependency-cruiser.cjs catches a breach: the project's own configuration is run
 * against a small tree of fixture files (in a temporary directory laid out like the repository), where each
 * forbidden import is made once, next to allowed ones that must pass.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const REPO_ROOT = join(__dirname, '..');
const CLI = join(REPO_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(REPO_ROOT, '.dependency-cruiser.cjs');

const entry = (name: string): string => `export const ${name} = '${name}';\n`;

/** File → source. Every lib has an index and a testing entry point, as the repository's libs may. */
const FIXTURE: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      baseUrl: '.',
      module: 'commonjs',
      moduleResolution: 'node',
      paths: {
        '@acm/persistence/testing': ['libs/persistence/src/testing/index.ts'],
        '@acm/participant-sdk/provider': ['libs/participant-sdk/src/provider/index.ts'],
        '@acm/*': ['libs/*/src/index.ts'],
      },
    },
  }),
  ...Object.fromEntries(
    ['domain', 'tosca', 'contracts', 'messaging', 'persistence', 'participant-sdk', 'simulator'].flatMap((lib) => [
      [`libs/${lib}/src/index.ts`, entry('index')],
      [`libs/${lib}/src/internal.ts`, entry('internal')],
      [`libs/${lib}/src/testing/index.ts`, entry('testing')],
    ]),
  ),
  'libs/participant-sdk/src/provider/index.ts': entry('provider'),
  'libs/participant-sdk/src/provider/internal.ts': entry('providerInternal'),
  'apps/one/src/uses-provider.ts': `export { provider } from '@acm/participant-sdk/provider';\n`,
  'apps/one/src/uses-provider-internals.ts': `export { providerInternal } from '../../../libs/participant-sdk/src/provider/internal';\n`,
  'apps/one/src/service.ts': entry('service'),
  'apps/two/src/service.ts': entry('service'),
  'apps/runtime-acm/src/application/service.ts': `export { index } from '../engine/engine';\n`,
  'apps/runtime-acm/src/http/controller.ts': entry('controller'),

  // Breaches, one per rule (some rules twice, to show both directions or both kinds of caller).
  'libs/domain/src/uses-io.ts': `export { readFileSync } from 'node:fs';\n`,
  'libs/domain/src/uses-lib.ts': `export { index } from '@acm/tosca';\n`,
  'libs/tosca/src/uses-lib.ts': `export { index } from '@acm/domain';\n`,
  'libs/messaging/src/uses-lib.ts': `export { index } from '@acm/contracts';\n`,
  'libs/contracts/src/uses-lib.ts': `export { index } from '@acm/domain';\nexport { index as bus } from '@acm/messaging';\n`,
  'libs/persistence/src/uses-lib.ts': `export { index } from '@acm/domain';\nexport { index as t } from '@acm/tosca';\n`,
  'libs/participant-sdk/src/uses-lib.ts': [
    `export { index } from '@acm/contracts';`,
    `export { index as bus } from '@acm/messaging';`,
    `export { index as domain } from '@acm/domain';`,
    `export { index as store } from '@acm/persistence';`,
    `export { internal } from '../../contracts/src/internal';`,
    '',
  ].join('\n'),
  'libs/simulator/src/uses-lib.ts': `export { index } from '@acm/participant-sdk';\nexport { index as t } from '@acm/tosca';\n`,
  'libs/messaging/src/uses-app.ts': `export { service } from '../../../apps/one/src/service';\n`,
  'apps/one/src/uses-app.ts': `export { service } from '../../two/src/service';\n`,
  'apps/runtime-acm/src/engine/engine.ts': `export { index } from '@acm/domain';\n`,
  'apps/runtime-acm/src/engine/uses-upper.ts': [
    `export { index } from '../application/service';`,
    `export { controller } from '../http/controller';`,
    '',
  ].join('\n'),
  'apps/runtime-acm/src/observability/route.ts': entry('route'),
  'apps/runtime-acm/src/metrics/registry.ts': `export { route } from '../observability/route';\n`,
  'apps/runtime-acm/src/database/database.ts': `export { setting } from '../config/setting';\n`,
  'apps/runtime-acm/src/config/setting.ts': entry('setting'),
  'apps/runtime-acm/src/http/uses-below.ts': `export { service } from '../application/service';\nexport { registry } from '../metrics/registry';\n`,
  'apps/runtime-acm/src/application/uses-adapter.ts': `export { controller } from '../http/controller';\n`,
  'apps/runtime-acm/src/metrics/uses-engine.ts': `export { index } from '../engine/engine';\n`,
  'apps/runtime-acm/src/observability/uses-metrics.ts': `export { route } from '../metrics/registry';\n`,
  'apps/runtime-acm/src/config/uses-database.ts': `export { setting } from '../database/database';\n`,
  'apps/one/src/uses-internals.ts': `export { internal } from '../../../libs/domain/src/internal';\n`,
  'test/uses-internals.ts': `export { internal } from '../libs/persistence/src/internal';\n`,
  'apps/one/src/uses-testing.ts': `export { testing } from '@acm/persistence/testing';\n`,
  'apps/one/src/service.spec.ts': `export { testing } from '@acm/persistence/testing';\nexport { service } from './service';\n`,
  'apps/one/src/uses-nothing.ts': `export { missing } from './missing';\n`,
  'apps/one/src/cycle-a.ts': `import { b } from './cycle-b';\nexport const a = (): string => b;\n`,
  'apps/one/src/cycle-b.ts': `import { a } from './cycle-a';\nexport const b = String(a);\n`,
};

/** Each breach as `rule: from → to`; nothing else may be reported. */
const EXPECTED = [
  'domain-imports-nothing: libs/domain/src/uses-io.ts → fs',
  'domain-imports-nothing: libs/domain/src/uses-lib.ts → libs/tosca/src/index.ts',
  'tosca-messaging-no-other-lib: libs/tosca/src/uses-lib.ts → libs/domain/src/index.ts',
  'tosca-messaging-no-other-lib: libs/messaging/src/uses-lib.ts → libs/contracts/src/index.ts',
  'contracts-persistence-domain-only: libs/contracts/src/uses-lib.ts → libs/messaging/src/index.ts',
  'contracts-persistence-domain-only: libs/persistence/src/uses-lib.ts → libs/tosca/src/index.ts',
  'sdk-contracts-messaging-domain-only: libs/participant-sdk/src/uses-lib.ts → libs/persistence/src/index.ts',
  'lib-to-lib-through-its-entry-point: libs/participant-sdk/src/uses-lib.ts → libs/contracts/src/internal.ts',
  'simulator-sdk-and-below-only: libs/simulator/src/uses-lib.ts → libs/tosca/src/index.ts',
  'libs-never-import-apps: libs/messaging/src/uses-app.ts → apps/one/src/service.ts',
  'no-app-imports-another-app: apps/one/src/uses-app.ts → apps/two/src/service.ts',
  'engine-not-up-into-application-or-http: apps/runtime-acm/src/engine/uses-upper.ts → apps/runtime-acm/src/application/service.ts',
  'engine-not-up-into-application-or-http: apps/runtime-acm/src/engine/uses-upper.ts → apps/runtime-acm/src/http/controller.ts',
  'runtime-inner-layers-not-up-into-adapters: apps/runtime-acm/src/engine/uses-upper.ts → apps/runtime-acm/src/http/controller.ts',
  'runtime-inner-layers-not-up-into-adapters: apps/runtime-acm/src/application/uses-adapter.ts → apps/runtime-acm/src/http/controller.ts',
  'runtime-support-not-up-into-services: apps/runtime-acm/src/metrics/uses-engine.ts → apps/runtime-acm/src/engine/engine.ts',
  'runtime-observability-below-metrics: apps/runtime-acm/src/observability/uses-metrics.ts → apps/runtime-acm/src/metrics/registry.ts',
  'runtime-config-at-the-bottom: apps/runtime-acm/src/config/uses-database.ts → apps/runtime-acm/src/database/database.ts',
  'lib-through-its-entry-point: apps/one/src/uses-internals.ts → libs/domain/src/internal.ts',
  'lib-through-its-entry-point: test/uses-internals.ts → libs/persistence/src/internal.ts',
  'lib-through-its-entry-point: apps/one/src/uses-provider-internals.ts → libs/participant-sdk/src/provider/internal.ts',
  'production-code-never-imports-tests: apps/one/src/uses-testing.ts → libs/persistence/src/testing/index.ts',
  'no-circular: apps/one/src/cycle-a.ts → apps/one/src/cycle-b.ts',
  'no-unresolvable: apps/one/src/uses-nothing.ts → ./missing',
];

interface CruiseReport {
  summary: { violations: Array<{ from: string; to: string; rule: { name: string } }> };
}

describe('dependency rules (.dependency-cruiser.cjs)', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'acm-dependency-rules-'));
    for (const [file, source] of Object.entries(FIXTURE)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), source);
    }
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const cruise = (...outputArguments: string[]) =>
    spawnSync(process.execPath, [CLI, '--config', CONFIG, ...outputArguments, 'apps', 'libs', 'test'], {
      cwd: root,
      encoding: 'utf8',
    });

  it('reports every forbidden import, each under its rule, and no allowed one', () => {
    const run = cruise('--output-type', 'json');
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as CruiseReport;
    const found = report.summary.violations.map(
      (violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`,
    );
    expect([...found].sort()).toEqual([...EXPECTED].sort());
  });

  it('fails the run as npm run deps makes it (so npm run check fails)', () => {
    const run = cruise();
    expect(run.stdout).toContain(`${EXPECTED.length} dependency violations`);
    expect(run.status).not.toBe(0);
  });
});
