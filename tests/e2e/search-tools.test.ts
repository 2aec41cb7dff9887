/**
 * search_tools end to end (issue 39): the workbench over real stdio (the source, or the executable
 * WORKBENCH_BIN names) with real SDK clients of both protocol revisions (SDK 1.32 on 2025-11-25,
 * SDK v2 pinned to 2026-07-28), and over HTTP with both. A first session lists the toolbox (filling the listing cache); in the
 * next, a search finds the tool without starting its server, and use_tool calls it without open_toolbox.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { connectEraClient, type ToolResult } from "../helpers/era-clients.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";
import { eventually, fx, spawnLog } from "../helpers/toolbox.ts";
import { connectLegacy, connectModern, startHttpWorkbench } from "../helpers/http-workbench.ts";
import type { Client } from "../helpers/sdk.ts";

after(removeTempDirs);

const textOf = (result: ToolResult) => result.content?.find((block) => block.type === "text")?.text ?? "";

for (const kind of ["sdk-1.32", "v2-pinned"] as const) {
  test(`search_tools end to end: a ${kind} client finds a tool from the cache without a start, and calls it without open_toolbox`, async () => {
    const dir = tempDir();
    const spawns = spawnLog();
    const path = writeConfig(dir, {
      toolSearch: true,
      toolboxes: {
        dev: { description: "Development helpers", mcpServers: { fx: fx("dev", {}, spawns.env) } },
        ops: { mcpServers: { fx: fx("ops", { toolFilters: ["sleep"] }, spawns.env) } },
      },
    });
    const env = { WORKBENCH_CACHE_DIR: `${dir}/cache` };
    const first = await connectEraClient(kind, path, env, "Ada");
    try {
      assert.deepEqual(await first.listTools(), ["open_toolbox", "use_tool", "search_tools"]);
      for (const toolbox of ["dev", "ops"]) assert.ok(!(await first.call("open_toolbox", { toolbox_name: toolbox })).isError);
    } finally {
      await first.close();
    }
    const started = spawns.spawned().length;
    const client = await connectEraClient(kind, path, env, "Ada");
    try {
      const found = await client.call("search_tools", { query: "echo the text back" });
      assert.equal(found.isError, undefined, `${textOf(found)}\n${client.stderr()}`);
      assert.match(textOf(found), /^dev\/fx echo\(text: string\): dev: echo the text back$/m);
      assert.doesNotMatch(textOf(found), /ops\/fx echo/, "filtered out of ops");
      assert.equal(spawns.spawned().length, started, "no server started to search");
      const called = await client.call("use_tool", { tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text: "hi" } });
      assert.equal(called.isError, undefined, textOf(called));
      assert.match(textOf(called), /hi/);
    } finally {
      await client.close();
    }
  });
}

test("search_tools end to end over HTTP: SDK 1.32 (2025-11-25 session) and SDK v2 (2026-07-28) clients find a tool and call it without open_toolbox", async () => {
  const workbench = await startHttpWorkbench({
    toolSearch: true,
    toolboxes: { dev: { description: "Development helpers", mcpServers: { fx: fx("dev") } } },
  }, { WORKBENCH_CACHE_DIR: `${tempDir()}/cache` });
  try {
    const legacy = await connectLegacy(workbench.url);
    const modern = await connectModern(workbench.url);
    try {
      for (const client of [legacy.client, modern as unknown as Client]) {
        assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["open_toolbox", "use_tool", "search_tools"]);
        // Nothing cached yet: the server is named, listed in the background, then found.
        const found = await eventually("echo found", async () => textOf(await client.callTool({ name: "search_tools", arguments: { query: "echo the text back" } }) as ToolResult), (text) => /^dev\/fx echo/m.test(text), 20_000);
        assert.match(found, /^dev\/fx echo\(text: string\): dev: echo the text back$/m);
        const called = await client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text: "hi" } } }) as ToolResult;
        assert.equal(called.isError, undefined, textOf(called));
        assert.match(textOf(called), /hi/);
      }
    } finally {
      await legacy.client.close();
      await modern.close();
    }
  } finally {
    await workbench.stop();
  }
});
