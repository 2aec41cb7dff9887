/**
 * Per-agent scoping (issue 39, item 6), end to end with real SDK clients: over stdio with
 * `--toolboxes` or WORKBENCH_TOOLBOXES, and over HTTP with the path `/mcp/<toolbox>[,<toolbox>…]`.
 * A scoped session sees only its toolboxes (instructions, open_toolbox, search_tools); a name outside
 * it is one that does not exist; a path never widens a client's grants; two scopes that list one
 * server definition share its process.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { type CallToolResult, Client } from "../helpers/sdk.ts";
import { startWorkbench, removeTempDirs, tempDir, textOf, writeConfig } from "../helpers/workbench.ts";
import { fixtureServer, workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { fx, spawnLog } from "../helpers/toolbox.ts";
import { connectLegacy, connectModern, startHttpWorkbench } from "../helpers/http-workbench.ts";

after(removeTempDirs);

const spawns = spawnLog();
const config = {
  toolSearch: true,
  toolboxes: {
    dev: { description: "Development", mcpServers: { fx: fx("shared", {}, spawns.env), cat: fixtureServer("catalog-server.ts", { env: { FIXTURE_LABEL: "cat" } }) } },
    docs: { description: "Documents", mcpServers: { fx: fx("shared", {}, spawns.env) } },
    ops: { description: "Operations", mcpServers: { other: fx("ops", {}, spawns.env), cat: fixtureServer("catalog-server.ts", { env: { FIXTURE_LABEL: "cat" } }) } },
  },
};

/** A scoped session whose listing cache knows every toolbox (an unscoped session opened them first). */
async function scopedSession(how: "flag" | "env") {
  const cache = { WORKBENCH_CACHE_DIR: `${tempDir()}/cache` };
  const first = await startWorkbench(config, cache);
  for (const toolbox of ["dev", "ops"]) await first.call("open_toolbox", { toolbox_name: toolbox });
  await first.close();
  return how === "flag"
    ? await startWorkbench(config, cache, undefined, ["--toolboxes", "dev,docs"])
    : await startWorkbench(config, { ...cache, WORKBENCH_TOOLBOXES: "dev,docs" });
}

for (const how of ["flag", "env"] as const) {
  test(`scoping over stdio (${how === "flag" ? "--toolboxes dev,docs" : "WORKBENCH_TOOLBOXES=dev,docs"}): instructions, open_toolbox and search_tools see only the scope`, async () => {
    const session = await scopedSession(how);
    try {
      const instructions = session.client.getInstructions() ?? "";
      assert.match(instructions, /dev/);
      assert.doesNotMatch(instructions, /ops|Operations/);
      const openOps = await session.call("open_toolbox", { toolbox_name: "ops" }) as CallToolResult;
      assert.equal(textOf(openOps), "Toolbox 'ops' not found in configuration; available toolboxes: 'dev', 'docs'");
      const tools = await session.client.listTools();
      assert.doesNotMatch(JSON.stringify(tools), /Operations/);
      const searchOps = await session.call("search_tools", { query: "echo", toolbox: "ops" }) as CallToolResult;
      assert.equal(textOf(searchOps), textOf(openOps));
      assert.ok(!(await session.call("open_toolbox", { toolbox_name: "dev" }) as CallToolResult).isError);
      const { prompts } = await session.client.listPrompts();
      const names = prompts.map((prompt) => prompt.name);
      assert.ok(names.includes("dev__cat__greet") && !names.some((name) => name.startsWith("ops__")), JSON.stringify(names));
      const found = await session.call("search_tools", { query: "echo the text back", limit: 50 }) as CallToolResult;
      // deno-lint-ignore no-explicit-any
      assert.ok(((found.structuredContent as any).results as { toolbox: string }[]).every((r) => r.toolbox !== "ops"));
    } finally {
      await session.close();
    }
  });
}

test("scoping over stdio: a name that is not a toolbox stops the start with a clear message", () => {
  const dir = tempDir();
  const path = writeConfig(dir, config);
  const { command, args } = workbenchCommand(["--config", path, "--toolboxes", "dev,nope"]);
  const run = spawnSync(command, args, { env: workbenchEnv({}), input: "", timeout: 20_000, encoding: "utf8" });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /--toolboxes names 'nope', not a toolbox of .*; available toolboxes: 'dev', 'docs', 'ops'/);
});

test("scoping over HTTP: /mcp/dev and /mcp/docs see only their toolbox and share the server both list; an unknown one is 404", async () => {
  const before = spawns.spawned().filter((line) => line.startsWith("shared ")).length;
  const workbench = await startHttpWorkbench(config);
  try {
    const dev = await connectLegacy(`${workbench.url}/dev`);
    const docs = await connectModern(`${workbench.url}/docs`);
    try {
      const call = (client: Client | Awaited<ReturnType<typeof connectModern>>, name: string, args: Record<string, unknown>) =>
        (client as Client).callTool({ name, arguments: args }) as Promise<CallToolResult>;
      assert.equal(textOf(await call(dev.client, "open_toolbox", { toolbox_name: "docs" })), "Toolbox 'docs' not found in configuration; available toolboxes: 'dev'");
      assert.ok(!(await call(dev.client, "open_toolbox", { toolbox_name: "dev" })).isError);
      assert.ok(!(await call(docs, "open_toolbox", { toolbox_name: "docs" })).isError);
      assert.match(textOf(await call(docs, "use_tool", { tool: { toolbox: "docs", server: "fx", name: "echo" }, arguments: { text: "hi" } })), /hi/);
      const shared = spawns.spawned().filter((line) => line.startsWith("shared ")).length - before;
      assert.equal(shared, 1, "one process for the definition both scopes list");
    } finally {
      await dev.client.close();
      await docs.close();
    }
    const missing = await fetch(`${workbench.url}/nope`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /toolbox \\"nope\\" is not in the configuration/);
  } finally {
    await workbench.stop();
  }
});

test("scoping over HTTP: a path never widens a client's grants: a token granted dev gets 404 for /mcp/ops and /mcp/dev,ops, and dev at /mcp/dev", async () => {
  const token = "scope-test-token-0123456789";
  const workbench = await startHttpWorkbench({ ...config, serve: { clients: { ada: { token: "${SCOPE_TOKEN}", toolboxes: ["dev"] } } } }, { SCOPE_TOKEN: token });
  try {
    const post = (path: string) =>
      fetch(`${workbench.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      });
    for (const path of ["/ops", "/dev,ops"]) {
      const refused = await post(path);
      assert.equal(refused.status, 404, path);
      assert.match(await refused.text(), /toolbox \\"ops\\" is not in the configuration/);
    }
    const allowed = await post("/dev");
    assert.equal(allowed.status, 200);
    await allowed.body?.cancel();
  } finally {
    await workbench.stop();
  }
});
