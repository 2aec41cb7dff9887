/**
 * Serving on stdio (src/serve.ts), in process: start-up ends (platform.startupDone, which gives the
 * executable its JIT back) only once the client's first answer is written, in both revisions. A
 * 2026-07-28 client's first request says so before it is answered, and the answer (the
 * instructions' tool counts) is start-up code too: made with the JIT back, it cost 1 MiB more
 * (issue 42, tests/e2e/memory.test.ts).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import type { Platform } from "../src/platform/types.ts";
import { serve } from "../src/serve.ts";
import { loadForCommand } from "../src/cli/common.ts";
import { fixtureServer } from "./helpers/runtime.ts";
import { removeTempDirs, tempDir, writeConfig } from "./helpers/workbench.ts";

after(removeTempDirs);

const OPENINGS: [string, object[]][] = [
  ["initialize (2025-11-25)", [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
  ]],
  ["server/discover (2026-07-28)", [{
    jsonrpc: "2.0",
    id: 1,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }]],
];

for (const [opening, messages] of OPENINGS) {
  test(`serve: start-up ends after the answer to ${opening} is written, not before`, async () => {
    const dir = tempDir();
    const events: string[] = [];
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    let endInput!: () => void;
    const stdin = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const message of messages) controller.enqueue(encoder.encode(`${JSON.stringify(message)}\n`));
        endInput = () => controller.close();
      },
    });
    let answered!: () => void;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    let startedUp!: () => void;
    const startUp = new Promise<void>((resolve) => (startedUp = resolve));
    const stdout = new WritableStream<Uint8Array>({
      write(chunk) {
        if (decoder.decode(chunk).includes('"id":1')) (events.push("answer"), answered());
      },
    });
    const fake = Object.create(platform, {
      stdin: { value: stdin },
      stdout: { value: stdout },
      env: { value: { ...platform.env, WORKBENCH_CACHE_DIR: `${dir}/cache` } },
      writeStderr: { value: () => {} },
      stdinIsTerminal: { value: () => false },
      onSignal: { value: () => {} },
      parentAlive: { value: () => true },
      startupDone: { value: () => (events.push("start-up done"), startedUp()) },
    }) as Platform;
    const path = writeConfig(dir, { toolboxes: { dev: { mcpServers: { one: fixtureServer("fixture-server.ts") } } } });
    const loaded = await loadForCommand(fake, path);
    assert.ok(loaded);
    const serving = serve(fake, loaded);
    await answer;
    // Awaited (bounded), not given a guessed 50 ms: the order of the two is what is judged.
    await Promise.race([startUp, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    endInput();
    assert.equal(await serving, 0);
    assert.deepEqual(events, ["answer", "start-up done"]);
  });
}
