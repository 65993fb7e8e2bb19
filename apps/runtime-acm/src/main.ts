import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createRuntimeApp, CONTEXT_PATH } from './bootstrap';
import { loadRuntimeConfig } from './config/runtime.config';

async function main(): Promise<void> {
  const config = loadRuntimeConfig();
  const { app } = await createRuntimeApp(config);
  await app.listen(config.port, config.host);
  const base = `http://localhost:${config.port}/${CONTEXT_PATH}`;
  new Logger('Runtime').log(`ACM runtime listening: ${base}/v2 — Swagger UI ${base}/swagger-ui`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
