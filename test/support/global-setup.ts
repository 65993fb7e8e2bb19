import { selectTestServices } from './service-selection';
import { startTestContainers } from './test-containers';

/** Jest global setup: starts containers when ACM_TEST_SERVICES=containers; otherwise the scripts' services. */
export default async function globalSetup(): Promise<void> {
  if (selectTestServices(process.env) !== 'containers') {
    return;
  }
  const started = await startTestContainers(process.env);
  (globalThis as { acmTestServices?: { stop(): Promise<void> }[] }).acmTestServices ??= [];
  (globalThis as { acmTestServices?: { stop(): Promise<void> }[] }).acmTestServices?.push(started);
}
