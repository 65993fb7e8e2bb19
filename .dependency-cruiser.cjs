/**
 * The allowed directions between the project's parts, enforced by `npm run deps` (part of `npm run check`).
 * docs/architecture.md explains them; test/dependency-rules.spec.ts shows that each rule catches a breach.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make initialisation order fragile and modules untestable on their own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import the cruiser cannot resolve would escape every other rule.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'domain-imports-nothing',
      severity: 'error',
      comment:
        'libs/domain is pure: no framework, no I/O, no other lib, no Node built-in. jsep, a pure expression parser ' +
        'with no dependency, reads health-gate conditions (control/health-gate.ts evaluates them).',
      from: { path: '^libs/domain/' },
      to: { pathNot: ['^libs/domain/', '^node_modules/jsep/'] },
    },
    {
      name: 'input-guards-no-other-lib',
      severity: 'error',
      comment: 'libs/input-guards (parsing of untrusted input) is a leaf: it imports no other lib.',
      from: { path: '^libs/input-guards/' },
      to: { path: '^libs/', pathNot: '^libs/input-guards/' },
    },
    {
      name: 'tosca-messaging-no-other-lib',
      severity: 'error',
      comment: 'libs/tosca and libs/messaging stand alone: they import no other lib but the input guards.',
      from: { path: '^libs/(tosca|messaging)/' },
      to: { path: '^libs/', pathNot: ['^libs/$1/', '^libs/input-guards/'] },
    },
    {
      name: 'contracts-persistence-domain-only',
      severity: 'error',
      comment: 'libs/contracts and libs/persistence import the domain and no other lib.',
      from: { path: '^libs/(contracts|persistence)/' },
      to: { path: '^libs/', pathNot: ['^libs/$1/', '^libs/domain/'] },
    },
    {
      name: 'sdk-contracts-messaging-domain-only',
      severity: 'error',
      comment: 'The participant SDK builds on the wire format, the bus and the domain only.',
      from: { path: '^libs/participant-sdk/' },
      to: { path: '^libs/', pathNot: ['^libs/participant-sdk/', '^libs/(contracts|messaging|domain)/'] },
    },
    {
      name: 'simulator-sdk-and-below-only',
      severity: 'error',
      comment: 'The simulator participant is built only on the SDK and the libs the SDK builds on.',
      from: { path: '^libs/simulator/' },
      to: {
        path: '^libs/',
        pathNot: ['^libs/simulator/', '^libs/(participant-sdk|contracts|messaging|domain|input-guards)/'],
      },
    },
    {
      name: 'libs-never-import-apps',
      severity: 'error',
      comment: 'Applications compose libraries, never the other way round.',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-app-imports-another-app',
      severity: 'error',
      comment: 'What two applications share belongs in a library.',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'engine-not-up-into-application-or-http',
      severity: 'error',
      comment: 'The engine sits below the application services and the REST layer; they call it, not the reverse.',
      from: { path: '^apps/runtime-acm/src/engine/' },
      to: { path: '^apps/runtime-acm/src/(application|http)/' },
    },
    {
      name: 'runtime-inner-layers-not-up-into-adapters',
      severity: 'error',
      comment:
        'Inside the runtime, the adapters (http, messaging, supervision, live) and the composition root call the ' +
        'application, engine and support folders; nothing below them imports an adapter or the root.',
      from: { path: '^apps/runtime-acm/src/(application|engine|metrics|observability|security|database|config)/' },
      to: {
        path: [
          '^apps/runtime-acm/src/(http|messaging|supervision|live|cli)/',
          '^apps/runtime-acm/src/(bootstrap|main|runtime\\.module)\\.ts$',
        ],
      },
    },
    {
      name: 'runtime-support-not-up-into-services',
      severity: 'error',
      comment:
        'metrics, observability, security, database and config serve the engine and the application: ' +
        'they import neither, nor each other upwards (observability below metrics, config at the bottom).',
      from: { path: '^apps/runtime-acm/src/(metrics|observability|security|database|config)/' },
      to: { path: '^apps/runtime-acm/src/(application|engine)/' },
    },
    {
      name: 'runtime-observability-below-metrics',
      severity: 'error',
      comment: 'Metrics build on observability (route names, contexts); observability never reads a metric.',
      from: { path: '^apps/runtime-acm/src/observability/' },
      to: { path: '^apps/runtime-acm/src/metrics/' },
    },
    {
      name: 'runtime-config-at-the-bottom',
      severity: 'error',
      comment: 'Configuration is read once and passed down; it imports no other folder of the runtime.',
      from: { path: '^apps/runtime-acm/src/config/' },
      to: { path: '^apps/runtime-acm/src/', pathNot: '^apps/runtime-acm/src/config/' },
    },
    {
      name: 'lib-through-its-entry-point',
      severity: 'error',
      comment:
        'Outside a lib, import it as @acm/<lib> (its index.ts), @acm/<lib>/testing or @acm/participant-sdk/provider, ' +
        'never its internals.',
      from: { path: '^(apps|test|bench)/' },
      to: {
        path: '^libs/[^/]+/src/',
        pathNot: ['^libs/[^/]+/src/(testing/)?index\\.ts$', '^libs/participant-sdk/src/provider/index\\.ts$'],
      },
    },
    {
      name: 'lib-to-lib-through-its-entry-point',
      severity: 'error',
      comment:
        'A lib imports another lib as @acm/<lib> (its index.ts), @acm/<lib>/testing or @acm/participant-sdk/provider, ' +
        'never its internals.',
      from: { path: '^libs/([^/]+)/' },
      to: {
        path: '^libs/',
        pathNot: [
          '^libs/$1/',
          '^libs/[^/]+/src/(testing/)?index\\.ts$',
          '^libs/participant-sdk/src/provider/index\\.ts$',
        ],
      },
    },
    {
      name: 'production-code-never-imports-tests',
      severity: 'error',
      comment:
        'The build leaves tests and the @acm/<lib>/testing entry points out: production code must not need them.',
      from: { pathNot: ['\\.(spec|int-spec|e2e-spec|conformance-spec)\\.ts$', '/testing/', '^test/', '^bench/'] },
      to: {
        path: ['\\.(spec|int-spec|e2e-spec|conformance-spec)\\.ts$', '^libs/[^/]+/src/testing/index\\.ts$', '^test/'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The console's Vite configuration is build tooling, not part of any app.
    exclude: { path: ['^(node_modules|dist|dist-bench)/', '^apps/console/vite\\.config\\.mjs$'] },
    // Type-only imports count: a type from another lib is a dependency on it all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.d.ts', '.js', '.json'] },
  },
};
