/**
 * Soak over HTTP (issue 30): 1,000 sessions of the SDK 1.32 client (2025-11-25), each opened,
 * used (open_toolbox and one echo) and ended with DELETE, eight at a time, against one
 * `serve --http` process. Its resident memory comes back within 10% of where it was after a
 * warm-up, its sessions' server processes stop with the last of them, and nothing is left once it
 * stops. HTTP_SOAK_SESSIONS changes the count (by hand).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, Client } from "../helpers/sdk.ts";
import { startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { descendants, waitGone } from "../helpers/procs.ts";
import { residentBytes } from "../../scripts/bench/memory.ts";

const SESSIONS = Number(process.env.HTTP_SOAK_SESSIONS ?? 1_000);
const WARM_UP = Number(process.env.HTTP_SOAK_WARM_UP ?? 500);
const AT_ONCE = 8;
/** Every loop is bounded: the whole soak ends by then, done or not. */
const BUDGET_MS = 240_000;
const CONFIG = { toolboxes: { soak: { mcpServers: { s: fixtureServer("line-server.ts") } } } };
const SETTLE_MS = Number(process.env.HTTP_SOAK_SETTLE_MS ?? 15_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One session from initialize to DELETE; its echo must come back as sent. */
async function oneSession(url: string, index: number): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: `soak-${index}`, version: "1.0.0" });
  await client.connect(transport);
  try {
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "soak" } }, undefined, { timeout: 20_000 });
    const text = `session ${index}`;
    const result = await client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "soak", server: "s", name: "echo" }, arguments: { text } } }, undefined, { timeout: 20_000 }) as CallToolResult;
    assert.equal(result.content[0]?.type === "text" && result.content[0].text, text);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
}

/** `count` sessions, AT_ONCE at a time, until done or the deadline; how many ran. */
async function sessions(url: string, first: number, count: number, deadline: number): Promise<number> {
  let next = first;
  let done = 0;
  const lane = async () => {
    while (next < first + count && Date.now() < deadline) {
      await oneSession(url, next++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  return done;
}

/**
 * The lowest reading in the second half of an idle while: a runtime gives back the heap it grew
 * under load only some seconds after the load stops (V8's memory reducer, JSC's timed collection).
 */
async function rss(pid: number): Promise<number> {
  const samples: number[] = [];
  for (const until = Date.now() + SETTLE_MS; Date.now() < until;) {
    samples.push(residentBytes(pid));
    await sleep(250);
  }
  // The lowest: a collection that runs while idle shows as a drop.
  return Math.min(...samples.slice(-Math.ceil(samples.length / 2)));
}

test(`http soak: ${SESSIONS} sessions opened and closed; RSS back within 10%, no process left`, { timeout: BUDGET_MS + 60_000 }, async () => {
  const workbench = await startHttpWorkbench(CONFIG);
  const seen = new Set<number>([workbench.pid]);
  try {
    const deadline = Date.now() + BUDGET_MS;
    assert.equal(await sessions(workbench.url, 0, WARM_UP, deadline), WARM_UP);
    const start = await rss(workbench.pid);
    const watch = setInterval(() => descendants(workbench.pid).forEach((child) => seen.add(child.pid)), 200);
    let ran: number;
    try {
      ran = await sessions(workbench.url, WARM_UP, SESSIONS, deadline);
    } finally {
      clearInterval(watch);
    }
    assert.equal(ran, SESSIONS, `all sessions ran within ${BUDGET_MS / 1000} s`);
    // The last session gone, its server stops too.
    const children = descendants(workbench.pid).map((child) => child.pid);
    assert.deepEqual(await waitGone(children, 5_000), [], "no server outlives the sessions");
    const end = await rss(workbench.pid);
    console.log(`http soak: RSS ${(start / 2 ** 20).toFixed(1)} MiB after ${WARM_UP} sessions, ${(end / 2 ** 20).toFixed(1)} MiB after ${SESSIONS} more`);
    assert.ok(end <= start * 1.1, `RSS ${end} bytes after the soak, ${start} before: more than 10% up`);
  } finally {
    await workbench.stop();
  }
  assert.deepEqual(await waitGone([...seen], 5_000), [], "no process left");
});
