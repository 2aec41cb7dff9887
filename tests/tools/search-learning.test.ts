/**
 * Tool search learning from use (issue 53), in real sessions over web streams with the fixture
 * server and a listing cache on disk: a tool called after a search is kept (per configuration file,
 * in the cache's folder) and lifts that tool for a similar request in a later session; it is never
 * found where the offer withholds it (filtered out, not granted); `"toolSearch": {"learn": false}`
 * keeps nothing; a request nothing fits answers with the toolboxes and what they are for.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { platform } from "#platform";
import { validateConfig, type WorkbenchConfig } from "../../src/config/index.ts";
import { ListingCache } from "../../src/cache/listing-cache.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { openSession } from "../../src/upstream/session.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";
import { type ClientIdentity, LOCAL_USER } from "../../src/upstream/client-identity.ts";
import { type CallToolResult, Client } from "../helpers/sdk.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

after(removeTempDirs);

const TIMEOUT = { timeout: 20_000 };
const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const cacheIn = (dir: string) => new ListingCache({ ...platform, env: { ...platform.env, WORKBENCH_CACHE_DIR: dir } });
const textOf = (result: CallToolResult) => result.content.map((item) => item.type === "text" ? item.text : "").join("");
// deno-lint-ignore no-explicit-any
const structured = (result: CallToolResult) => result.structuredContent as any;
const names = (result: CallToolResult) =>
  (structured(result).results as { toolbox: string; name: string }[]).map((r) => `${r.toolbox}/${r.name}`);

const configOf = (toolSearch: unknown, devFilters?: string[]) =>
  validateConfig({
    toolSearch,
    toolboxes: {
      dev: { description: "Development helpers", mcpServers: { fx: fx("dev", devFilters ? { toolFilters: devFilters } : {}) } },
      ops: { mcpServers: { fx: fx("ops", { toolFilters: ["sleep", "blob"] }) } },
    },
  });

/** A session on `config` (its path: `configPath`), a search and, when `tool` is given, a call of it; then closed. */
async function session<T>(
  config: WorkbenchConfig,
  cacheDir: string,
  fn: (call: (name: string, args: object) => Promise<CallToolResult>) => Promise<T>,
  client?: ClientIdentity,
): Promise<T> {
  const pool = new ServerPool(config, host, { cache: cacheIn(cacheDir) });
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const opened = await openSession(new StreamTransport(up.readable, down.writable), {
    config,
    configPath: "/work/learn/workbench-config.json",
    pool,
    cache: cacheIn(cacheDir),
    client,
    onClose: () => {},
    onError: () => {},
  });
  const sdk = new Client({ name: "learning-test", version: "1" });
  await sdk.connect(new StreamTransport(down.readable, up.writable));
  try {
    return await fn((name, args) =>
      sdk.callTool({ name, arguments: args as Record<string, unknown> }, undefined, TIMEOUT) as Promise<CallToolResult>
    );
  } finally {
    await sdk.close();
    await opened.close();
    await pool.closeAll();
  }
}

/** Words no fixture tool has, even with what they imply: only learning can find a tool for them. */
const REQUEST = "plonk the frobnicator quickly";
const choicesFiles = (dir: string) => existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith("search-choices-")) : [];

/** Searches REQUEST, then calls dev's echo: the judgement. */
async function learnEcho(config: WorkbenchConfig, dir: string): Promise<void> {
  await session(config, dir, async (call) => {
    assert.ok(!names(await call("search_tools", { query: REQUEST })).includes("dev/echo"), "not found before learning");
    // Not found: the model opens a toolbox and picks the tool itself; that is the judgement.
    await call("open_toolbox", { toolbox_name: "dev" });
    const used = await call("use_tool", { tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text: "hi" } });
    assert.equal(used.isError, undefined, textOf(used));
  });
}

async function waitForFile(dir: string): Promise<string> {
  for (let turn = 0; turn < 100 && choicesFiles(dir).length === 0; turn++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(choicesFiles(dir).length, 1, "one file of choices for the configuration file");
  return readFileSync(`${dir}/${choicesFiles(dir)[0]}`, "utf8");
}

test("search learning: a tool called after a search lifts it for a similar request in a later session; the file keeps terms, not the text", async () => {
  const dir = tempDir();
  await learnEcho(configOf(true), dir);
  const kept = await waitForFile(dir);
  assert.ok(!kept.includes(REQUEST), "the request's text is not kept, only its terms");
  assert.match(kept, /"tool":"dev\\u0000fx\\u0000echo"/);
  const found = await session(configOf(true), dir, async (call) => names(await call("search_tools", { query: "plonk that frobnicator" })));
  assert.equal(found[0], "dev/echo");
});

test("search learning: never surfaces a tool the offer withholds: filtered out, or in a toolbox not granted", async () => {
  const dir = tempDir();
  await learnEcho(configOf(true), dir);
  await waitForFile(dir);
  const filtered = await session(
    configOf(true, ["sleep"]),
    dir,
    async (call) => names(await call("search_tools", { query: REQUEST, limit: 50 })),
  );
  assert.ok(!filtered.includes("dev/echo"), `filtered out: ${filtered}`);
  const ungranted = await session(configOf(true), dir, async (call) => names(await call("search_tools", { query: REQUEST, limit: 50 })), {
    ...LOCAL_USER,
    toolboxes: ["ops"],
  });
  assert.ok(!ungranted.some((name) => name.startsWith("dev/")), `not granted: ${ungranted}`);
  const narrowed = await session(
    configOf(true),
    dir,
    async (call) => names(await call("search_tools", { query: REQUEST, toolbox: "ops" })),
  );
  assert.ok(!narrowed.includes("dev/echo"), `another toolbox asked for: ${narrowed}`);
});

test('search learning: "toolSearch": {"learn": false} keeps nothing and lifts nothing', async () => {
  const dir = tempDir();
  // The cache warm first: every tool known to the searches that follow.
  await session(configOf(true), dir, async (call) => void await call("open_toolbox", { toolbox_name: "dev" }));
  await learnEcho(configOf({ learn: false }), dir);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(choicesFiles(dir), []);
  await learnEcho(configOf(true), dir);
  await waitForFile(dir);
  const found = await session(configOf({ learn: false }), dir, async (call) => names(await call("search_tools", { query: REQUEST })));
  assert.ok(!found.includes("dev/echo"), `learning off: ${found}`);
});

test("search: a request nothing fits answers with the toolboxes and what they are for, not an empty list", async () => {
  const dir = tempDir();
  const answer = await session(configOf(true), dir, async (call) => {
    await call("open_toolbox", { toolbox_name: "ops" });
    return await call("search_tools", { query: "qwxz vbnm" });
  });
  assert.equal(answer.isError, undefined, textOf(answer));
  assert.deepEqual(structured(answer).results, []);
  const toolboxes = structured(answer).toolboxes as { toolbox: string; description: string; servers: string[]; tools: string[] }[];
  assert.deepEqual(toolboxes.map((t) => [t.toolbox, t.description]), [["dev", "Development helpers"], ["ops", ""]]);
  assert.deepEqual(toolboxes[1].servers, ["fx"]);
  assert.deepEqual(toolboxes[1].tools, ["sleep", "blob"]);
  assert.match(textOf(answer), /No tool fits these words/);
  assert.match(textOf(answer), /\ndev: Development helpers\n/);
  assert.match(textOf(answer), /\nops: servers fx; tools such as sleep, blob/);
});
