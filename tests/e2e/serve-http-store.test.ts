/**
 * Choosing the store (issue 48): `--store URL` or `"serve": {"store": ...}`. A store that is named
 * and cannot be opened is never replaced by memory: serving refuses to start and says which store
 * and why (never its password); `--store` is for HTTP only; a store that opens is named at start.
 * Replicas share what their servers listed through it (issue 47). A store back after an outage
 * makes the clients list again: what the change feed carried meanwhile was lost.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { runCli } from "../helpers/cli.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { redisMissing, startRedis } from "../helpers/redis.ts";
import { Client, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from "../helpers/sdk.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fx } from "../helpers/toolbox.ts";
import { descendants } from "../helpers/procs.ts";
import { eventually } from "../helpers/toolbox.ts";

after(removeTempDirs);

const CONFIG = { toolboxes: { dev: { mcpServers: {} } } };

test("serve --store: a store that cannot be reached, or whose password variable is unset, refuses to serve; --store needs --http", async () => {
  const path = writeConfig(tempDir(), CONFIG);
  const unreachable = await runCli(["serve", "--http", "127.0.0.1:0", "--store", "redis://user:s3cret-pass@127.0.0.1:1", "--config", path]);
  assert.equal(unreachable.code, 2, unreachable.stderr);
  assert.match(unreachable.stderr, /Cannot serve: The store 'redis:\/\/user@127\.0\.0\.1:1' is unreachable/);
  assert.doesNotMatch(unreachable.stderr, /s3cret-pass/);
  const unset = writeConfig(tempDir(), { ...CONFIG, serve: { store: "redis://:${WB_STORE_PASSWORD}@127.0.0.1:6379" } });
  const missing = await runCli(["serve", "--http", "127.0.0.1:0", "--config", unset]);
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /Cannot serve: .*WB_STORE_PASSWORD/);
  const stdio = await runCli(["serve", "--store", "redis://127.0.0.1:6379", "--config", path]);
  assert.equal(stdio.code, 2);
  assert.match(stdio.stderr, /Option '--store' is for serving over HTTP/);
});

test("serve --store: a store that opens is named when serving starts", { skip: redisMissing() }, async () => {
  const redis = await startRedis();
  try {
    const workbench = await startHttpWorkbench(CONFIG, {}, "127.0.0.1:0", ["--store", redis.url]);
    try {
      assert.match(workbench.stderr(), new RegExp(`sessions kept in redis://127\\.0\\.0\\.1:${redis.port}`));
    } finally {
      await workbench.stop();
    }
  } finally {
    await redis.stop();
  }
});

test("serve --store: a replica started after another listed a server tells its clients the server's tools without starting it", { skip: redisMissing() }, async () => {
  const redis = await startRedis();
  const config = { toolboxes: { dev: { description: "Listed", mcpServers: { fx: fx("listed") } } } };
  const instructionsOf = async (url: string, open: boolean) => {
    const client = new Client({ name: "listings", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      if (open) await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
      return client.getInstructions() ?? "";
    } finally {
      await client.close();
    }
  };
  try {
    // Each replica has a listing cache directory of its own (startHttpWorkbench).
    const first = await startHttpWorkbench(config, {}, "127.0.0.1:0", ["--store", redis.url]);
    try {
      assert.doesNotMatch(await instructionsOf(first.url, true), /\d+ tools?, ~/, "nothing was listed before");
    } finally {
      await first.stop();
    }
    const second = await startHttpWorkbench(config, {}, "127.0.0.1:0", ["--store", redis.url]);
    try {
      assert.match(await instructionsOf(second.url, false), /\d+ tools?, ~[\d.,]+k? tokens/);
      assert.deepEqual(descendants(second.pid), [], "no server was started on the second replica");
    } finally {
      await second.stop();
    }
  } finally {
    await redis.stop();
  }
});

test("serve --store: when the store is back after an outage, a client holding its GET stream is told every list may have changed", { skip: redisMissing() }, async () => {
  const redis = await startRedis();
  const workbench = await startHttpWorkbench(CONFIG, {}, "127.0.0.1:0", ["--store", redis.url]);
  const client = new Client({ name: "outage", version: "1.0.0" });
  const told: string[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void told.push("tools"));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void told.push("prompts"));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void told.push("resources"));
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(workbench.url)));
    // The SDK client opens its GET stream once initialized, on its own.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await redis.kill();
    await eventually("the store lost", () => workbench.stderr(), (text) => /is unreachable/.test(text), 15_000);
    await redis.start();
    await eventually("the store back", () => workbench.stderr(), (text) => /is back/.test(text), 15_000);
    await eventually("every list changed", () => [...told].sort(), (kinds) => kinds.join() === "prompts,resources,tools", 10_000);
  } finally {
    await client.close().catch(() => {});
    await workbench.stop();
    await redis.stop();
  }
});
