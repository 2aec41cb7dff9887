/**
 * Capability churn (issue 38): each distinct capability object a client declares used to start new
 * server processes (25 requests, 26 processes). Servers are keyed on what they are given, the
 * capabilities as forwarded downstream and normalised: what changes nothing a server sees starts
 * nothing new. Extensions too (issue 52: 20 sessions differing only in them started 20 processes): a
 * server is given only the extensions it declared, each as a flag.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fx, spawnLog } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { Client } from "../helpers/sdk.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

after(removeTempDirs);

const SESSIONS = 20;

/**
 * Twenty capability objects that declare the same to a server (elicitation in form mode, sampling,
 * roots with listChanged) and differ in what no server is given: unknown keys and their values,
 * experimental, tasks, `{}` or `{"form": {}}`.
 */
function capabilities(index: number): Record<string, unknown> {
  const junk = { [`k${index}`]: index };
  const base = { sampling: {}, roots: { listChanged: true } };
  switch (index % 5) {
    case 0:
      return { ...base, experimental: junk, elicitation: {} };
    case 1:
      return { ...base, elicitation: { ...junk }, tasks: junk };
    case 2:
      return { elicitation: { form: { ...junk } }, sampling: { ...junk }, roots: { listChanged: true, ...junk } };
    case 3:
      return { ...base, elicitation: { form: {} }, [`unknown${index}`]: junk };
    default:
      return { ...base, elicitation: { form: {} }, sampling: { note: `${index}` } };
  }
}

test(`capability churn: ${SESSIONS} sessions over serve --http with different capability objects start at most 2 processes of one server`, async (t) => {
  const log = spawnLog();
  const wb = await startHttpWorkbench({ toolboxes: { dev: { mcpServers: { a: fx("a", {}, log.env) } } } });
  try {
    for (let index = 0; index < SESSIONS; index++) {
      const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities(index) };
      const response = await fetch(wb.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
        body: JSON.stringify({ jsonrpc: "2.0", id: index, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: meta } }),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      assert.equal(response.status, 200, text.slice(0, 300));
      assert.match(text, /source_server[^a-z]+a/, text.slice(0, 300));
    }
    const started = log.spawned().filter((line) => line.startsWith("a "));
    t.diagnostic(`${started.length} process(es) of server a for ${SESSIONS} sessions`);
    assert.ok(started.length <= 2, `${started.length} processes of server a for ${SESSIONS} sessions`);
  } finally {
    await wb.stop();
  }
});

/** The pids of the processes still running, and their resident memory, from /proc (Linux; else none). */
function alive(pids: number[]): { count: number; mib: number } {
  let count = 0;
  let kib = 0;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      count++;
      kib += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // Gone, or not Linux.
    }
  }
  return { count, mib: Math.round(kib / 1024) };
}

const pidsOf = (lines: string[]) => lines.map((line) => Number(line.split(" ")[1]));

test(`capability churn: ${SESSIONS} 2025-11-25 sessions of one client that differ only in their extensions share one process of a server that declares none`, async (t) => {
  const log = spawnLog();
  const wb = await startHttpWorkbench({ toolboxes: { dev: { mcpServers: { a: fx("a", {}, log.env) } } } });
  const clients: Client[] = [];
  try {
    for (let index = 0; index < SESSIONS; index++) {
      // Another name each time, with settings of its own: what no server that declares none is given.
      const extensions = { [`io.example/ext-${index}`]: { setting: index }, "io.example/common": { seed: index } };
      const client = new Client({ name: `churn-${index}`, version: "1.0.0" }, { capabilities: { extensions } as never });
      await client.connect(new StreamableHTTPClientTransport(new URL(wb.url)));
      clients.push(client);
      const opened = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }) as { isError?: boolean };
      assert.equal(opened.isError, undefined);
    }
    const started = log.spawned().filter((line) => line.startsWith("a "));
    const running = alive(pidsOf(started));
    t.diagnostic(`${started.length} process(es) of server a for ${SESSIONS} sessions, ${running.count} running, ${running.mib} MiB`);
    assert.equal(started.length, 1, `${started.length} processes of server a for ${SESSIONS} sessions`);
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await wb.stop();
  }
});

test("capability churn: 2026-07-28 requests with 10 extension names, then 10 settings of one, share one process of a server that declares none", async (t) => {
  const log = spawnLog();
  const wb = await startHttpWorkbench({ toolboxes: { dev: { mcpServers: { a: fx("a", {}, log.env) } } } });
  try {
    const declared = [
      ...Array.from({ length: 10 }, (_, index) => ({ [`io.example/name-${index}`]: {} })),
      ...Array.from({ length: 10 }, (_, index) => ({ "io.example/one": { setting: index, nested: { deep: [index] } } })),
    ];
    for (const [index, extensions] of declared.entries()) {
      const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": { extensions } };
      const response = await fetch(wb.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
        body: JSON.stringify({ jsonrpc: "2.0", id: index, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" }, _meta: meta } }),
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      assert.equal(response.status, 200, text.slice(0, 300));
      assert.match(text, /source_server[^a-z]+a/, text.slice(0, 300));
    }
    const started = log.spawned().filter((line) => line.startsWith("a "));
    const running = alive(pidsOf(started));
    t.diagnostic(`${started.length} process(es) of server a for ${declared.length} hubs, ${running.count} running, ${running.mib} MiB`);
    assert.equal(started.length, 1, `${started.length} processes of server a for ${declared.length} hubs`);
  } finally {
    await wb.stop();
  }
});

test("capability churn: a server that declares an extension is given it as a flag by the sessions that declare it, whatever its settings: two processes for four sessions", async () => {
  const dir = tempDir();
  writeFileSync(`${dir}/pinned.json`, JSON.stringify({ description: "Greets." }));
  const starts = `${dir}/starts.log`;
  const server = fixtureServer("pinned-server.ts", { env: { PINNED_FILE: `${dir}/pinned.json`, PINNED_STARTS: starts } });
  const wb = await startHttpWorkbench({ pin: false, toolboxes: { dev: { mcpServers: { pinned: server } } } });
  const UI = "io.modelcontextprotocol/ui";
  const clients: Client[] = [];
  try {
    const sessions = [{}, { [UI]: {} }, { [UI]: { mimeTypes: ["text/html;profile=mcp-app"] } }, { [UI]: {}, "io.example/other": { x: 1 } }];
    const listed: string[][] = [];
    for (const [index, extensions] of sessions.entries()) {
      const client = new Client({ name: `apps-${index}`, version: "1.0.0" }, { capabilities: { extensions } as never });
      await client.connect(new StreamableHTTPClientTransport(new URL(wb.url)));
      clients.push(client);
      const opened = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }) as { content: { text: string }[] };
      listed.push((JSON.parse(opened.content[0].text).tools as { name: string }[]).map((tool) => tool.name));
    }
    assert.deepEqual(listed, [["greet", "stable"], ["greet", "stable", "panel"], ["greet", "stable", "panel"], ["greet", "stable", "panel"]]);
    const given = readFileSync(starts, "utf8").trim().split("\n").map((line) => JSON.parse(line).extensions);
    assert.deepEqual(given, [undefined, { [UI]: {} }], "two processes: without the extension, and with it as a flag");
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await wb.stop();
  }
});

test("capability churn: search_tools from 5 hubs of one client (other capabilities each) lists an unknown server in the background once", async (t) => {
  const log = spawnLog();
  const wb = await startHttpWorkbench({ toolSearch: true, toolboxes: { dev: { mcpServers: { a: fx("a", {}, log.env) } } } }, { WORKBENCH_CACHE_DIR: `${tempDir()}/cache` });
  try {
    const declared = [{}, { elicitation: {} }, { sampling: {} }, { roots: {} }, { elicitation: { url: {} }, sampling: { tools: {} } }];
    const searches = declared.map(async (capabilities, index) => {
      const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities };
      const response = await fetch(wb.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
        body: JSON.stringify({ jsonrpc: "2.0", id: index, method: "tools/call", params: { name: "search_tools", arguments: { query: "echo" }, _meta: meta } }),
        signal: AbortSignal.timeout(20_000),
      });
      assert.equal(response.status, 200);
      return await response.text();
    });
    const answers = await Promise.all(searches);
    assert.ok(answers.every((text) => text.includes("dev/a")), answers[0].slice(0, 400));
    // The listing in the background has time to start the processes it would.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const started = log.spawned().filter((line) => line.startsWith("a "));
    t.diagnostic(`${started.length} process(es) of server a for ${declared.length} hubs' searches`);
    assert.equal(started.length, 1, `${started.length} processes of server a`);
  } finally {
    await wb.stop();
  }
});
