/** A lock file of its own for a test: a PinStore on a fresh temporary folder, read once, removed after. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { platform } from "#platform";
import { LOCK_FILE, PinStore } from "../../src/toolboxes/pin-store.ts";

export async function withStore<T>(fn: (store: PinStore) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(`${tmpdir()}/workbench-pins-`);
  try {
    const store = new PinStore(`${dir}/${LOCK_FILE}`, platform);
    await store.refresh();
    return await fn(store);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
