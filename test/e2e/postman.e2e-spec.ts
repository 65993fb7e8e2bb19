import { join } from 'node:path';
import newman from 'newman';
import type { NewmanRunSummary } from 'newman';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { REPO_ROOT } from '../support/runtime-harness';

const LIFECYCLE = join(REPO_ROOT, 'postman/acm-lifecycle.postman_collection.json');
/** Bounds for a loaded machine (the embedded runtime starts in seconds on an idle one). */
const START_TIMEOUT_MS = 180_000;
const RUN_TIMEOUT_MS = 300_000;
const GENERATED = join(REPO_ROOT, 'postman/acm-runtime.openapi.postman_collection.json');

/** Runs a collection as `newman run` does, against the given base URL; no reporter, the summary is the answer. */
function run(collection: string, baseUrl: string): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    newman.run(
      {
        collection,
        envVar: [
          { key: 'baseUrl', value: baseUrl },
          // Polls are paced by newman's delay; the limit only ends a run whose state never comes (2 min at 50 ms).
          { key: 'pollLimit', value: '2400' },
        ],
        delayRequest: 50,
        reporters: [],
      },
      (error, summary) => (error ? reject(error) : resolve(summary)),
    );
  });
}

describe('the Postman lifecycle collection, run by newman', () => {
  let runtime: EmbeddedRuntime;

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('postman');
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await runtime?.stop();
  });

  it(
    'passes every test from commission to the last delete',
    async () => {
      const summary = await run(LIFECYCLE, `http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm`);
      const failures = summary.run.failures.map((failure) => `${failure.source?.name}: ${failure.error.message}`);
      expect(failures).toEqual([]);
      const executed = new Set(summary.run.executions.map((execution) => execution.item.name));
      expect([...executed]).toEqual([
        'Commission the definition',
        'Prime',
        'Wait until PRIMED',
        'Instantiate',
        'Deploy',
        'Wait until DEPLOYED',
        'Undeploy',
        'Wait until UNDEPLOYED',
        'Delete the instance',
        'Wait until the instance is gone',
        'Deprime',
        'Wait until COMMISSIONED',
        'Delete the definition',
        'The definition is gone',
      ]);
      expect(summary.run.stats.assertions.failed).toBe(0);
      expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(20);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'generated from the OpenAPI document, answers every request without a server error',
    async () => {
      const summary = await run(GENERATED, `http://127.0.0.1:${runtime.port}/onap/policy/clamp/acm`);
      const answers = summary.run.executions.map((execution) => ({
        name: execution.item.name,
        status: execution.response?.code,
      }));
      expect(answers.length).toBeGreaterThanOrEqual(29);
      expect(answers.filter(({ status }) => status === undefined || status >= 500)).toEqual([]);
      expect(answers).toContainEqual({
        name: 'Commission a TOSCA service template; with metadata.compositionId, update that definition',
        status: 201,
      });
    },
    RUN_TIMEOUT_MS,
  );
});
