/**
 * A surface that does not change mid-session (issue 39, item 7): 20 live configuration changes while
 * a client is connected over stdio (the official SDK client), and the meta-tools' names,
 * descriptions and schemas stay byte for byte what they were at initialize; no tools/list_changed.
 * A toolbox added live is found by search_tools and opened by name. Only a change of the set of
 * meta-tools (code mode turned on) is told, and the tools the client had keep their definitions.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { renameSync, writeFileSync } from "node:fs";
import { type CallToolResult, Client, ToolListChangedNotificationSchema } from "../helpers/sdk.ts";
import { removeTempDirs, startWorkbench } from "../helpers/workbench.ts";
import { eventually, fx } from "../helpers/toolbox.ts";

after(removeTempDirs);

const APPLIED_MS = 15_000;
const CHANGES = 20;

test(`stable surface: ${CHANGES} live configuration changes leave the meta-tools byte-identical; a toolbox added live is found by search and by name`, async () => {
  const configOf = (n: number, extra: Record<string, unknown> = {}) => ({
    toolSearch: true,
    pin: false,
    ...extra,
    toolboxes: {
      a: { description: `A, edit ${n}`, mcpServers: { s: fx("a") } },
      ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`added${i}`, { description: `Added ${i}`, mcpServers: { s: fx(`added${i}`) } }])),
    },
  });
  const client = new Client({ name: "stable-surface-test", version: "1.0.0" });
  let heard = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard++);
  const session = await startWorkbench(configOf(0), {}, client);
  const path = `${session.dir}/workbench-config.json`;
  const save = (config: unknown) => {
    writeFileSync(`${path}.tmp`, JSON.stringify(config));
    renameSync(`${path}.tmp`, path);
  };
  const applied = () => session.stderr().split("\n").filter((line) => line.includes("applied the configuration")).length;
  try {
    const initial = JSON.stringify((await client.listTools()).tools);
    for (let n = 1; n <= CHANGES; n++) {
      save(configOf(n));
      await eventually(`change ${n} applied`, applied, (count) => count >= n, APPLIED_MS);
      assert.equal(JSON.stringify((await client.listTools()).tools), initial, `after change ${n}`);
    }
    assert.equal(heard, 0, "no tools/list_changed");
    // The toolbox added last: by name at once, and by search once its tools are known (listed in the background).
    const last = `added${CHANGES - 1}`;
    const opened = await session.call("open_toolbox", { toolbox_name: last }) as CallToolResult;
    assert.equal(opened.isError, undefined);
    const found = await eventually("the added toolbox found by search", async () => {
      const result = await session.call("search_tools", { query: `added${CHANGES - 1} echo the text back`, toolbox: last }) as CallToolResult;
      // deno-lint-ignore no-explicit-any
      return ((result.structuredContent as any)?.results ?? []) as { toolbox: string; name: string }[];
    }, (results) => results.length > 0, APPLIED_MS);
    assert.deepEqual([found[0].toolbox, found[0].name], [last, "echo"]);
    // Code mode on: run_code joins, the client is told, and the tools it had stay as they were.
    save(configOf(CHANGES, { codeMode: true }));
    await eventually("tools/list_changed for run_code", () => heard, (count) => count >= 1, APPLIED_MS);
    const now = (await client.listTools()).tools;
    assert.deepEqual(now.map((tool) => tool.name), ["open_toolbox", "use_tool", "search_tools", "run_code"]);
    assert.equal(JSON.stringify(now.slice(0, 3)), initial);
  } finally {
    await session.close();
  }
});
