/** The call step alone: the resolved tool called through its server; failures as the text the client sees, a -32042 as the client can act on. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../../src/config/index.ts";
import { type ConfiguredServer, ToolboxRegistry } from "../../../src/toolboxes/registry.ts";
import { resolveTool } from "../../../src/tools/pipeline/resolve.ts";
import { sendCall } from "../../../src/tools/pipeline/call.ts";
import type { Result } from "../../../src/tools/pipeline/values.ts";
import { fixtureServer } from "../../helpers/runtime.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const config = validateConfig({
  toolboxes: { dev: { mcpServers: { a: fixtureServer("fixture-server.ts", { env: { FIXTURE_LABEL: "a", FIXTURE_FAILURES: "1" } }) } } },
});
const registry = new ToolboxRegistry(config, host, {});
after(() => registry.closeAll());

const errorOf = (result: Result<unknown>) => result.ok ? "" : result.error;

async function call(name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const id = { toolbox: "dev", server: "a", name };
  const ctx = { config, registry, signal: new AbortController().signal, ...extra };
  const resolved = await resolveTool(id, { ...ctx, opensToolboxes: () => true }, {});
  assert.ok(resolved.ok, errorOf(resolved));
  return await sendCall(id, args, resolved.value, ctx);
}

test("call: the server's result comes back, and its server definition is told of it", async () => {
  const told: ConfiguredServer[] = [];
  const result = await call("echo", { text: "hi" }, { onToolResult: (owner: ConfiguredServer) => told.push(owner) });
  assert.deepEqual(result, { ok: true, value: { content: [{ type: "text", text: "a: hi" }] } });
  assert.deepEqual(told.map((owner) => [owner.toolbox, owner.server]), [["dev", "a"]]);
});

test("call: a server's error is the text the client sees", async () => {
  assert.equal(errorOf(await call("throw", {})), "Error executing tool 'throw' in server 'a' (toolbox 'dev'): MCP error -32603: a threw on purpose");
});

test("call: a -32042 is kept for a client that opens URLs, else its URLs are in the text", async () => {
  const kept = await call("needs_url", {}, { clientOpensUrls: () => true });
  assert.equal(!kept.ok && kept.rpc?.code, -32042);
  const told = await call("needs_url", {});
  assert.equal(!told.ok && told.rpc, undefined);
  assert.match(errorOf(told), /the user must open this URL, then call the tool again: https:\/\/example\.com\/connect\?account=1 \(Connect your account\)$/);
});
