import type { StoreFailure } from './database-unavailable';
import { StorageWrites } from './storage-writes';

const diskFull = Object.assign(new Error('could not extend file "base/5/16384": No space left on device'), {
  code: '53100',
});

describe(StorageWrites.name, () => {
  it('remembers a write refused for lack of space until a write succeeds, and tells each failure', async () => {
    const storage = new StorageWrites();
    const failures: StoreFailure[] = [];
    let recoveries = 0;
    storage.onFailure((failure) => failures.push(failure));
    storage.onRecovered(() => (recoveries += 1));

    await expect(storage.track(() => Promise.reject(diskFull))).rejects.toBe(diskFull);
    await expect(storage.track(() => Promise.reject(diskFull))).rejects.toBe(diskFull);
    expect(storage.current).toMatchObject({ cause: 'disk-full', sqlstate: '53100', storageFull: true });
    expect(failures.map((failure) => failure.cause)).toEqual(['disk-full', 'disk-full']);

    // A pass that wrote nothing proves nothing about the disk.
    await storage.track(
      () => Promise.resolve(0),
      (written) => written > 0,
    );
    expect(storage.current).not.toBeNull();
    expect(recoveries).toBe(0);

    await expect(storage.track(() => Promise.resolve('written'))).resolves.toBe('written');
    expect(storage.current).toBeNull();
    expect(recoveries).toBe(1);
  });

  it('leaves outages and wrong statements to the readiness ping and the caller', async () => {
    const storage = new StorageWrites();
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const syntax = Object.assign(new Error('syntax error'), { code: '42601' });
    await expect(storage.track(() => Promise.reject(refused))).rejects.toBe(refused);
    await expect(storage.track(() => Promise.reject(syntax))).rejects.toBe(syntax);
    expect(storage.current).toBeNull();
  });
});
