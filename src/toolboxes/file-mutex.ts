/**
 * One writer at a time across processes, for a file that several processes read, change and write
 * whole (the lock file of pins): a marker file beside it, created only if it is not there (an
 * atomic hard link), held for the few milliseconds of one read-change-write, then removed. A
 * marker left by a process that died is taken over once it is older than STALE_MS.
 */
/** What the mutex needs of the platform. */
export interface MutexFiles {
  readTextFile(path: string): Promise<string>;
  createFile(path: string, text: string, options: { overwrite: boolean; private?: boolean }): Promise<void>;
  removeFile(path: string): Promise<void>;
}

/** A holder keeps it for milliseconds: one this old was left by a process that is gone. */
const STALE_MS = 10_000;
/** How long a writer waits for another before it gives up. */
const WAIT_MS = 15_000;

/** Runs `job` while holding `<path>.writing`; throws when it cannot be had. */
export async function whileHolding<T>(path: string, files: MutexFiles, job: () => Promise<T>): Promise<T> {
  const marker = `${path}.writing`;
  const deadline = Date.now() + WAIT_MS;
  for (let attempt = 1;; attempt++) {
    try {
      await files.createFile(marker, `${Date.now()}\n`, { overwrite: false, private: true });
      break;
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name !== "AlreadyExists") throw error;
      const since = Number(await files.readTextFile(marker).catch(() => ""));
      if (Number.isFinite(since) && since > 0 && Date.now() - since > STALE_MS) {
        await files.removeFile(marker).catch(() => {});
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`another process has been writing it for ${WAIT_MS / 1000} s ('${marker}' exists; delete it if none is)`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, 2 + Math.random() * 5 * attempt)));
    }
  }
  try {
    return await job();
  } finally {
    // One that cannot be removed is taken over once stale.
    await files.removeFile(marker).catch(() => {});
  }
}
