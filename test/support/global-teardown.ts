/** Jest global teardown: stops what global-setup.ts started (nothing on the scripts' services). */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as { acmTestServices?: { stop(): Promise<void> }[] };
  const started = holder.acmTestServices ?? [];
  holder.acmTestServices = [];
  await Promise.all(started.map((services) => services.stop()));
}
