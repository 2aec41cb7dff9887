/**
 * Hostile input on stdio (issue 13): each input byte for byte, through a real workbench process.
 * After each one the session must go on, errors must be the ones JSON-RPC prescribes, and no
 * answer may carry an id the client did not send.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import process from "node:process";
import { fixtureServer } from "../helpers/runtime.ts";
import { type RawSession, type Reply, startRaw } from "../helpers/raw-session.ts";
import { waitGone } from "../helpers/procs.ts";

const NO_TOOLBOXES = { toolboxes: {} };
const ping = (id: number | string) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
const useTool = (id: number | string, toolbox: string, server: string, name: string, args: object = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "use_tool", arguments: { tool: { toolbox, server, name }, arguments: args } },
  });
const openToolbox = (id: number, toolbox: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: toolbox } } });
const error = (id: number | string | null, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } });

/** Sends each line, then a ping; returns what was answered before the ping's answer. */
async function sendThenPing(session: RawSession, lines: string[], pingId: number): Promise<Reply[]> {
  const before = session.replies.length;
  await session.write([...lines, ping(pingId)].join("\n") + "\n");
  await session.answer(pingId);
  // Errors are written at once; the SDK answers the ping a little later: all are in by now.
  return session.replies.slice(before).filter((reply) => reply.id !== pingId);
}

async function withRaw(config: unknown, fn: (session: RawSession) => Promise<void>): Promise<void> {
  const session = await startRaw(config);
  try {
    await fn(session);
  } finally {
    await session.close();
  }
}

test("e2e hostile: a message nested 50,000 levels deep is refused and the session goes on", async () => {
  await withRaw(NO_TOOLBOXES, async (session) => {
    const open = "[".repeat(50_000);
    const close = "]".repeat(50_000);
    const replies = await sendThenPing(session, [
      `{"jsonrpc":"2.0","method":"ping","id":${open}${close}}`,
      `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"deep":${open}${close}}}`,
      `{"jsonrpc":"2.0","id":4,"result":{"deep":${open}${close}}}`,
      `{"jsonrpc":"2.0","method":"notifications/initialized","unknown":${open}${close}}`,
    ], 10);
    const tooDeep = "Invalid Request: nested deeper than 1000 levels";
    // The id that is itself too deep cannot be read: null. The stray response and the
    // notification get no answer, as JSON-RPC says.
    assert.deepEqual(replies, [error(null, -32600, tooDeep), error(3, -32600, tooDeep)]);
    assert.doesNotMatch(session.stderr(), /Read failed|Maximum call stack/);
  });
});

test("e2e hostile: a request whose id JSON-RPC does not allow is refused with id null and not run", async () => {
  const ids = ["{}", "[]", "[1]", "true", "false", "null", "1e400", "123456789012345678901234567890", "9007199254740993", "1.5"];
  await withRaw({ toolboxes: { dev: { mcpServers: {} } } }, async (session) => {
    const lines = ids.map((id) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"open_toolbox","arguments":{"toolbox_name":"dev"}}}`
    );
    const replies = await sendThenPing(session, lines, 2);
    const refused = error(null, -32600, "Invalid Request: id must be a string or a safe integer");
    assert.deepEqual(replies, ids.map(() => refused));
  });
});

test("e2e hostile: not JSON, a batch and bad params get the JSON-RPC errors, not silence", async () => {
  await withRaw(NO_TOOLBOXES, async (session) => {
    const replies = await sendThenPing(session, [
      "this is not json",
      '[{"jsonrpc":"2.0","id":3,"method":"ping"}]',
      "[]",
      '{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}',
      '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1]}',
      '{"jsonrpc":"2.0","id":6,"method":"initialize","params":5}',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      '{"jsonrpc":"2.0","id":7,"method":42}',
      '{"jsonrpc":"1.0","id":8,"method":"ping"}',
      '{"valid":"json","but":"not JSON-RPC"}',
      '{"jsonrpc":"2.0","id":9}',
    ], 20);
    const batch = error(null, -32600, "Invalid Request: batches are not supported; send one message per line");
    const badId = error(null, -32600, "Invalid Request: id must be a string or a safe integer");
    const notObject = "Invalid params: params must be an object";
    assert.deepEqual(replies, [
      error(null, -32700, "Parse error: the line is not valid JSON"),
      batch,
      batch,
      error(4, -32602, notObject),
      error(5, -32602, notObject),
      error(6, -32602, notObject),
      badId,
      badId,
      error(7, -32600, "Invalid Request: method must be a string"),
      error(8, -32600, 'Invalid Request: jsonrpc must be "2.0"'),
      error(null, -32600, 'Invalid Request: jsonrpc must be "2.0"'),
      error(9, -32600, "Invalid Request: a message needs a method, or an id with a result or an error"),
    ]);
  });
});

test("e2e hostile: logs name what was wrong, never the content; a flood is cut to 20 lines a second", async () => {
  const secret = "sk-live-SECRET-1234";
  const session = await startRaw(NO_TOOLBOXES);
  try {
    const huge = `${secret} ${"y".repeat(10 * 1024 * 1024)}`;
    const replies = await sendThenPing(session, [
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: huge }),
      JSON.stringify({ jsonrpc: "2.0", id: 4, result: { token: secret } }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: secret, progress: 1 } }),
      `not json ${secret}`,
      ...Array.from({ length: 200 }, () => `{"jsonrpc":"2.0","id":{"k":"${secret}"},"method":"ping"}`),
    ], 5);
    assert.deepEqual(replies[0], error(3, -32602, "Invalid params: params must be an object"));
  } finally {
    await session.close();
  }
  const stderr = session.stderr();
  assert.ok(!stderr.includes(secret), stderr.slice(0, 2_000));
  assert.ok(stderr.length < 8_000, `stderr is ${stderr.length} characters`);
  const lines = stderr.trimEnd().split("\n");
  assert.deepEqual(lines.filter((line) => line.length > 300), []);
  const size = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: `${secret} ${"y".repeat(10 * 1024 * 1024)}` }).length;
  assert.ok(lines.includes(`mcp-workbench: Refused a message (method "ping", id 3, ${size} bytes): Invalid params: params must be an object`), stderr);
  const refused = lines.filter((line) => line.startsWith("mcp-workbench: Refused a message")).length;
  assert.ok(refused <= 20, `${refused} lines`);
  assert.match(stderr, /^mcp-workbench: \d+ more log lines suppressed$/m);
});

test("e2e hostile: a request whose id is in flight is refused; the first one is answered, a cancelled id may be reused", async () => {
  await withRaw({ toolboxes: { dev: { mcpServers: { fx: fixtureServer("fixture-server.ts") } } } }, async (session) => {
    await session.write(openToolbox(2, "dev") + "\n");
    await session.answer(2);
    await session.write(useTool(7, "dev", "fx", "sleep", { ms: 1_500 }) + "\n" + useTool(7, "dev", "fx", "echo", { text: "second" }) + "\n");
    const refusal = await session.reply((reply) => reply.id === null);
    assert.deepEqual(refusal, error(null, -32600, "Invalid Request: id 7 is already in use by a request in flight"));
    const first = await session.answer(7);
    assert.equal(first.result.content[0].text, "fixture slept 1500 ms");
    assert.equal(session.replies.filter((reply) => reply.id === 7).length, 1);

    // Cancelled, then reused at once: the new request is served, and answered once.
    const cancel = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } });
    await session.write([useTool(8, "dev", "fx", "sleep", { ms: 30_000 }), cancel, useTool(8, "dev", "fx", "echo", { text: "again" })].join("\n") + "\n");
    const reused = await session.answer(8);
    assert.equal(reused.result.content[0].text, "fixture: again");
    await session.write(ping(9) + "\n");
    await session.answer(9);
    assert.equal(session.replies.filter((reply) => reply.id === 8).length, 1);
  });
});

test("e2e hostile: a server that answers 50,000 levels deep fails that call at once and is restarted; others go on", async () => {
  // Two definitions (their env differs), so two processes: one definition would be one shared process.
  const lineServer = (role: string) => fixtureServer("line-server.ts", { env: { ROLE: role } });
  await withRaw({ toolboxes: { dev: { mcpServers: { bad: lineServer("bad"), good: lineServer("good") } } } }, async (session) => {
    await session.write(openToolbox(2, "dev") + "\n");
    await session.answer(2);
    const pidOf = async (id: number, server: string) => {
      await session.write(useTool(id, "dev", server, "pid") + "\n");
      return Number((await session.answer(id)).result.content[0].text);
    };
    const badPid = await pidOf(3, "bad");
    const goodPid = await pidOf(4, "good");
    const started = Date.now();
    await session.write(useTool(5, "dev", "bad", "deep", { levels: 50_000 }) + "\n");
    const failed = await session.answer(5, 30_000);
    assert.ok(Date.now() - started < 20_000, "the call waited for its timeout");
    assert.deepEqual(failed.result, {
      content: [{
        type: "text",
        text: "Error executing tool 'deep' in server 'bad' (toolbox 'dev'): server sent a message nested deeper than 1000 levels",
      }],
      isError: true,
    });
    assert.deepEqual(await waitGone([badPid], 10_000), [], "the broken server is stopped");
    const restarted = await pidOf(6, "bad");
    assert.notEqual(restarted, badPid);
    assert.equal(await pidOf(7, "good"), goodPid);
  });
});

test("e2e hostile: a client that stops reading does not make the workbench buffer without bound", async (t) => {
  if (process.platform !== "linux") {
    t.skip("VmRSS is read from /proc (Linux only)");
    return;
  }
  const calls = 300;
  const bytes = 1024 * 1024;
  // maxResultTokens 0: each result relayed whole, as this test is about relaying, not paging.
  await withRaw({ maxResultTokens: 0, toolboxes: { dev: { mcpServers: { big: fixtureServer("line-server.ts") } } } }, async (session) => {
    await session.write(openToolbox(2, "dev") + "\n");
    await session.answer(2);
    session.pause();
    const lines = Array.from({ length: calls }, (_, i) => useTool(1_000 + i, "dev", "big", "blob", { bytes }));
    await session.write(lines.join("\n") + "\n");
    let stalled = 0;
    // Long enough for the fixture to have written all 300 MiB to a workbench that kept reading.
    for (let sample = 0; sample < 60; sample++) {
      stalled = Math.max(stalled, rssBytes(session.pid));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    session.resume();
    let draining = 0;
    for (let i = 0; i < calls; i++) {
      const reply = await session.answer(1_000 + i, 60_000);
      assert.equal(reply.result.content[0].text.length, bytes, `call ${i}`);
      draining = Math.max(draining, rssBytes(session.pid));
    }
    assert.equal(session.replies.filter((reply) => reply.id >= 1_000).length, calls);
    const mib = (value: number) => Math.round(value / 1024 / 1024);
    // While draining, what the runtime has not collected yet shows too: reported, not bounded here.
    t.diagnostic(`peak VmRSS ${mib(stalled)} MiB while the client did not read, ${mib(draining)} MiB while it drained`);
    assert.ok(mib(stalled) < 300, `peak VmRSS ${mib(stalled)} MiB while the client did not read`);
  });
});

test("e2e hostile: a client that closed our stdout makes the workbench stop its servers and exit", async () => {
  const session = await startRaw({ toolboxes: { dev: { mcpServers: { fx: fixtureServer("line-server.ts") } } } });
  await session.write(openToolbox(2, "dev") + "\n" + useTool(3, "dev", "fx", "pid") + "\n");
  const serverPid = Number((await session.answer(3)).result.content[0].text);
  session.child.stdout!.destroy();
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => session.child.on("exit", (code) => resolve(code)));
  for (let id = 10; id < 15; id++) await session.write(useTool(id, "dev", "fx", "echo", { text: "x" }) + "\n").catch(() => {});
  const code = await Promise.race([exited, new Promise<"running">((resolve) => setTimeout(() => resolve("running"), 10_000))]);
  if (code === "running") session.child.kill("SIGKILL");
  assert.notEqual(code, "running", session.stderr());
  assert.ok(Date.now() - started < 3_000 + 2_500, `took ${Date.now() - started} ms`);
  assert.deepEqual(await waitGone([serverPid], 5_000), []);
  // Our own lines only: what the server says on its way out is relayed with its prefix.
  const stderr = session.stderr().split("\n").filter((line) => !line.startsWith("[dev/fx]")).join("\n");
  assert.equal(stderr.match(/Write failed/g)?.length, 1, stderr);
  assert.doesNotMatch(stderr, /^\s+at /m, "no stack trace");
  assert.ok(stderr.length < 1_000, stderr);
});

/** Resident memory of a process from /proc, in bytes (0 once it is gone). */
function rssBytes(pid: number): number {
  try {
    const kib = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
    return Number(kib ?? 0) * 1024;
  } catch {
    return 0;
  }
}
