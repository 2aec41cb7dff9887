/**
 * Watching the configuration file (src/config/watch.ts) over an in-memory file: a burst of saves
 * is loaded once, after it settles; a save by rename (the file gone for a moment) is one change; an
 * invalid text is reported once, in loadConfig's words, and a later valid one loads; a file gone
 * for good is reported; stop() ends the reads.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { WorkbenchConfig } from "../../src/config/index.ts";
import { watchConfigFile } from "../../src/config/watch.ts";
import { CONFIG_PATH, IN_FILE, loadText, memoryReader } from "./helpers.ts";

const POLL_MS = 10;
/**
 * Far longer than the 20 ms between the burst's saves: the watch and the saves share one event loop,
 * and a loaded machine that holds it up past the settle time would let a save in the middle settle.
 */
const SETTLE_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (description: string) => JSON.stringify({ toolboxes: { dev: { description, mcpServers: {} } } });

/** A file in memory, and what the watch made of it. */
function watched() {
  const files: Record<string, string> = { [CONFIG_PATH]: text("first") };
  let reads = 0;
  const read = memoryReader(files);
  const loaded: WorkbenchConfig[] = [];
  const invalid: string[] = [];
  const watch = watchConfigFile({
    path: CONFIG_PATH,
    readTextFile: (path) => (reads++, read(path)),
    env: {},
    pollMs: POLL_MS,
    settleMs: SETTLE_MS,
    onValid: (config) => loaded.push(config),
    onInvalid: (error) => invalid.push(error.message),
  });
  return { files, loaded, invalid, watch, reads: () => reads };
}

/** Waits (bounded) until `done`, polling. */
async function until(what: string, done: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`Timed out waiting for ${what}`);
    await sleep(5);
  }
}

const descriptions = (configs: WorkbenchConfig[]) => configs.map((config) => config.toolboxes.dev?.description);

test("config watch: the first settled text loads; a burst of saves loads once, as it ends", async () => {
  const { files, loaded, invalid, watch } = watched();
  try {
    await until("the first load", () => loaded.length === 1);
    // Saves closer together than the settle time: none is loaded but the last.
    for (const step of ["a", "b", "", "c"]) {
      files[CONFIG_PATH] = step === "" ? "" : text(step);
      await sleep(20);
    }
    await until("the burst's load", () => loaded.length === 2);
    await sleep(SETTLE_MS * 3);
    assert.deepEqual(descriptions(loaded), ["first", "c"]);
    assert.deepEqual(invalid, [], "the empty text in the middle of the burst never settled");
  } finally {
    watch.stop();
  }
});

test("config watch: a save by rename (the file gone for a moment) is one change", async () => {
  const { files, loaded, invalid, watch } = watched();
  try {
    await until("the first load", () => loaded.length === 1);
    delete files[CONFIG_PATH];
    await sleep(POLL_MS * 2);
    files[CONFIG_PATH] = text("renamed");
    await until("the rename's load", () => loaded.length === 2);
    await sleep(SETTLE_MS * 2);
    assert.deepEqual(descriptions(loaded), ["first", "renamed"]);
    assert.deepEqual(invalid, []);
  } finally {
    watch.stop();
  }
});

test("config watch: an invalid text is reported once in loadConfig's words; a valid one loads after it", async () => {
  const { files, loaded, invalid, watch } = watched();
  try {
    await until("the first load", () => loaded.length === 1);
    const bad = JSON.stringify({ toolboxes: { dev: { description: 5, mcpServers: {} } } });
    files[CONFIG_PATH] = bad;
    await until("the report", () => invalid.length === 1);
    await sleep(SETTLE_MS * 2);
    assert.equal(invalid.length, 1, "reported once while the text stays");
    const expected = await loadText(bad).then(() => "loaded", (error: Error) => error.message);
    assert.equal(invalid[0], expected);
    assert.equal(invalid[0], `${IN_FILE}Invalid configuration at toolboxes.dev.description: expected a string`);
    files[CONFIG_PATH] = text("fixed");
    await until("the fixed load", () => loaded.length === 2);
    assert.deepEqual(descriptions(loaded), ["first", "fixed"]);
  } finally {
    watch.stop();
  }
});

test("config watch: a file gone for good is reported; stop() ends the reads", async () => {
  const { files, loaded, invalid, watch, reads } = watched();
  await until("the first load", () => loaded.length === 1);
  delete files[CONFIG_PATH];
  await until("the report", () => invalid.length === 1);
  assert.match(invalid[0], /^Configuration file not found: '/);
  watch.stop();
  const stoppedAt = reads();
  await sleep(POLL_MS * 5);
  assert.ok(reads() <= stoppedAt + 1, "no read after stop (one may have been under way)");
});
