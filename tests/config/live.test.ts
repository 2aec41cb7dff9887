/** The configuration in force as one replaceable thing (src/config/live.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { WorkbenchConfig } from "../../src/config/index.ts";
import { LiveConfig } from "../../src/config/live.ts";

test("live config: listeners hear each replacement in order, after `current` is the new one; one that throws stops no other", () => {
  const first = { toolboxes: {} } as WorkbenchConfig;
  const second = { toolboxes: { dev: { description: "", openDetail: "full", mcpServers: {} } } } as WorkbenchConfig;
  const live = new LiveConfig(first);
  assert.equal(LiveConfig.of(live), live);
  const heard: string[] = [];
  live.onChange(() => {
    throw new Error("a broken listener");
  });
  const stop = live.onChange((next, previous) => heard.push(`${previous === first}:${next === second}:${live.current === second}`));
  const failed = live.replace(second);
  assert.deepEqual(heard, ["true:true:true"]);
  assert.deepEqual(failed.map((error) => error.message), ["a broken listener"]);
  stop();
  live.replace(first);
  assert.equal(heard.length, 1, "no longer told once unsubscribed");
});
