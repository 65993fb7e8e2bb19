import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Mounts a tmpfs of `bytes` on `directory`, for scenarios that fill a disk. Needs root (or CAP_SYS_ADMIN); where the
 * mount is refused this throws, so the scenario fails rather than passing without its fault.
 */
export function mountTmpfs(directory: string, bytes: number): void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', directory], { stdio: 'pipe' });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(
      `cannot mount a tmpfs on ${directory} (the disk-full scenarios need root): ${stderr ?? String(error)}`,
    );
  }
}

export function unmountTmpfs(directory: string): void {
  execFileSync('umount', ['-l', directory], { stdio: 'pipe' });
}

const FILLER = 'filler';
const CHUNK = Buffer.alloc(1024 * 1024, 0x61);

/** Writes a filler file in `directory` until its file system is full; returns the bytes written. */
export function fillDisk(directory: string): number {
  const descriptor = openSync(join(directory, FILLER), 'w');
  let written = 0;
  let chunk = CHUNK;
  try {
    // Down to single bytes, so not even a partial page is left.
    while (chunk.length > 0) {
      try {
        written += writeSync(descriptor, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') {
          throw error;
        }
        chunk = chunk.subarray(0, Math.floor(chunk.length / 2));
      }
    }
  } finally {
    closeSync(descriptor);
  }
  return written;
}

/** Removes the filler `fillDisk` wrote. */
export function freeDisk(directory: string): void {
  rmSync(join(directory, FILLER), { force: true });
}
