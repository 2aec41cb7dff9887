/** Which configured servers share one connection, and the settings that connection runs with. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { sharedConfig, sharingKey } from "../../src/config/definition.ts";
import { DEFAULT_SETTINGS, type RemoteServerConfig, type StdioServerConfig } from "../../src/config/index.ts";

const stdio = (extra: Partial<StdioServerConfig> = {}): StdioServerConfig => ({
  ...DEFAULT_SETTINGS,
  command: "npx",
  args: ["-y", "server"],
  env: { A: "1", B: "2" },
  transport: "stdio",
  ...extra,
});
const remote = (extra: Partial<RemoteServerConfig> = {}): RemoteServerConfig => ({
  ...DEFAULT_SETTINGS,
  url: "http://127.0.0.1:1/mcp",
  headers: { X: "1" },
  transport: "http",
  ...extra,
});

test("definition: command, args, env, cwd and inheritEnv decide; filters, limits and env order do not", () => {
  const key = sharingKey(stdio());
  assert.equal(sharingKey(stdio({ env: { B: "2", A: "1" } })), key);
  assert.equal(sharingKey(stdio({ toolFilters: ["x"], callTimeoutMs: 5, maxCallTimeMs: 6, validateArguments: false, idleTimeoutMs: 9 })), key);
  for (const other of [{ command: "uvx" }, { args: ["-y"] }, { env: { A: "1" } }, { cwd: "/tmp" }, { inheritEnv: true }]) {
    assert.notEqual(sharingKey(stdio(other)), key, JSON.stringify(other));
  }
  const url = sharingKey(remote());
  assert.equal(sharingKey(remote({ toolFilters: [] })), url);
  for (const other of [{ url: "http://127.0.0.1:2/mcp" }, { headers: {} }, { transport: "sse" as const }]) {
    assert.notEqual(sharingKey(remote(other)), url, JSON.stringify(other));
  }
});

test("definition: a shared connection gets the most generous limits; one idleTimeoutMs of 0 keeps it running", () => {
  const merged = sharedConfig([
    stdio({ connectTimeoutMs: 1_000, maxMessageBytes: 10, idleTimeoutMs: 500 }),
    stdio({ connectTimeoutMs: 3_000, maxMessageBytes: 5, idleTimeoutMs: 900 }),
  ]);
  assert.deepEqual([merged.connectTimeoutMs, merged.maxMessageBytes, merged.idleTimeoutMs], [3_000, 10, 900]);
  assert.equal(sharedConfig([stdio({ idleTimeoutMs: 500 }), stdio({ idleTimeoutMs: 0 })]).idleTimeoutMs, 0);
});

test('definition: one toolbox that says "roots": false keeps the shared connection off the client\'s roots', () => {
  assert.equal(sharedConfig([stdio(), stdio()]).roots, true);
  assert.equal(sharedConfig([stdio(), stdio({ roots: false })]).roots, false);
});
