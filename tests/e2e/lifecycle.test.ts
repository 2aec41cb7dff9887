/** Fault tolerance over real processes: crashes, restarts, timeouts, cancellation, progress, limits. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { errorText, eventually, firstProgress, fx, okText, opened, openToolbox, sleep, spawnLog, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, type Session, tempDir, withWorkbench, writeConfig } from "../helpers/workbench.ts";
import { fixturePids, isAlive, waitGone, waitReaped } from "../helpers/procs.ts";
import type { CallToolResult } from "../helpers/sdk.ts";
import { RpcClient } from "../../scripts/bench/rpc-client.ts";
import { workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";

// The folders this file's tests made with tempDir() or spawnLog() go once they are done.
after(removeTempDirs);

const one = (server: Record<string, unknown>) => ({ toolboxes: { dev: { description: "d", mcpServers: { fx: server } } } });
const ERR = "Error executing tool";

async function pidOf(session: Session): Promise<number> {
  return Number(okText(await useTool(session, "dev", "fx", "pid")));
}

test("lifecycle: a crash fails the pending call at once, naming the exit code", async () => {
  await withWorkbench(one(fx("A")), async (session) => {
    opened(await openToolbox(session, "dev"));
    const started = Date.now();
    const pending = useTool(session, "dev", "fx", "sleep", { ms: 20_000 });
    await sleep(200);
    await useTool(session, "dev", "fx", "exit", { code: 3 });
    assert.equal(errorText(await pending), `${ERR} 'sleep' in server 'fx' (toolbox 'dev'): server exited with code 3`);
    assert.ok(Date.now() - started < 5_000, "failed at once, not at a timeout");
  });
});

test("lifecycle: the next call after a crash restarts the server transparently", async () => {
  await withWorkbench(one(fx("A")), async (session) => {
    opened(await openToolbox(session, "dev"));
    const before = await pidOf(session);
    await useTool(session, "dev", "fx", "exit", { code: 3 });
    assert.ok(await waitReaped(before, 10_000), "the crashed server is reaped");
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", { text: "back" })), "A: back");
    assert.notEqual(await pidOf(session), before);
    assert.deepEqual(fixturePids(session).length, 1, "the crashed server left nothing behind");
  });
});

test("lifecycle: a crash takes down what the server started", async () => {
  await withWorkbench(one(fx("A")), async (session) => {
    opened(await openToolbox(session, "dev"));
    const server = await pidOf(session);
    const grandchild = Number(okText(await useTool(session, "dev", "fx", "grandchild")));
    assert.ok(isAlive(grandchild), "the server's own child runs");
    await useTool(session, "dev", "fx", "exit", { code: 3 });
    assert.deepEqual(await waitGone([server, grandchild], 10_000), [], `stderr:\n${session.stderr()}`);
  });
});

test("lifecycle: failed restarts back off, give up after 5 failures, and open_toolbox starts it again with its count reset", async () => {
  const flag = `${tempDir()}/fail`;
  await withWorkbench(one(fx("A", {}, { FIXTURE_FAIL_IF_EXISTS: flag })), async (session) => {
    opened(await openToolbox(session, "dev"));
    writeFileSync(flag, "");
    const crashed = await pidOf(session);
    await useTool(session, "dev", "fx", "exit", { code: 3 });
    assert.ok(await waitReaped(crashed, 10_000), "the crashed server is reaped");
    const failed = `${ERR} 'echo' in server 'fx' (toolbox 'dev'): restart failed: server exited with code 4 during initialization`;
    const waits: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      const started = Date.now();
      assert.equal(errorText(await useTool(session, "dev", "fx", "echo", { text: "x" })), failed);
      waits.push(Date.now() - started);
    }
    // Failure 1 was the crash; attempts wait 0, 0.5, 1 and 2 s before trying.
    assert.ok(waits[1] >= 400 && waits[2] >= 900 && waits[3] >= 1_900, `waits ${waits}`);
    const started = Date.now();
    assert.equal(
      errorText(await useTool(session, "dev", "fx", "echo", { text: "x" })),
      `${ERR} 'echo' in server 'fx' (toolbox 'dev'): server is down after 5 failures in a row ` +
        "(last: server exited with code 4 during initialization); call open_toolbox to start it again",
    );
    // Another restart would wait 4 s first: 1.5 s leaves a loaded machine room and still tells.
    assert.ok(Date.now() - started < 1_500, "a server that is down answers at once");
    rmSync(flag);
    const reopened = opened(await openToolbox(session, "dev"));
    assert.equal(reopened.servers_connected, 1);
    // The open itself starts the count over: a crash before any call (which would reset it too)
    // is one failure, restarted at once, not the sixth.
    const running = fixturePids(session);
    assert.equal(running.length, 1, `fixture servers: ${running}`);
    const [restarted] = running;
    process.kill(restarted, "SIGKILL");
    assert.ok(await waitReaped(restarted, 10_000), "the killed server is reaped");
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", { text: "up" })), "A: up");
  });
});

test("lifecycle: a call over callTimeoutMs fails naming the limit, and the server sees the cancellation", async () => {
  await withWorkbench(one(fx("A", { callTimeoutMs: 300 })), async (session) => {
    opened(await openToolbox(session, "dev"));
    assert.equal(
      errorText(await useTool(session, "dev", "fx", "sleep", { ms: 3_000 })),
      `${ERR} 'sleep' in server 'fx' (toolbox 'dev'): no answer within the call timeout of 300 ms (callTimeoutMs)`,
    );
    await eventually("the server to see the cancellation", async () => okText(await useTool(session, "dev", "fx", "cancellations")), (n) => n === "1");
  });
});

test("lifecycle: progress resets the call timer; maxCallTimeMs caps the call anyway", async () => {
  const config = {
    toolboxes: {
      dev: {
        description: "d",
        mcpServers: {
          patient: fx("A", { callTimeoutMs: 1_000 }),
          capped: fx("B", { callTimeoutMs: 1_000, maxCallTimeMs: 2_000 }),
        },
      },
    },
  };
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    // 6 steps of 400 ms: 2.4 s in all, more than twice the 1 s timeout, but never 1 s silent.
    assert.equal(okText(await useTool(session, "dev", "patient", "progress", { steps: 6, ms: 400 })), "A made 6 steps");
    // 100 steps of 300 ms (30 s) against a 2 s cap: cut at 2 s, whatever the progress. The bound is
    // half the work, far from the cap, so that a loaded machine never reaches it: it only tells a cut
    // at the cap from one at the end of the work.
    const started = Date.now();
    assert.equal(
      errorText(await useTool(session, "dev", "capped", "progress", { steps: 100, ms: 300 })),
      `${ERR} 'progress' in server 'capped' (toolbox 'dev'): call exceeded the maximum call time of 2000 ms (maxCallTimeMs)`,
    );
    assert.ok(Date.now() - started < 15_000, `cut at the cap, not at the end of the work: ${Date.now() - started} ms`);
  });
});

test("lifecycle: downstream progress reaches the client under the client's token, all of it before the result", async () => {
  const dir = tempDir();
  const { command, args } = workbenchCommand(["--config", writeConfig(dir, one(fx("A")))]);
  const client = RpcClient.start({ command, args, env: workbenchEnv(), cwd: dir });
  const seen: Record<string, unknown>[] = [];
  client.onMessage = (message) => seen.push(message);
  try {
    await client.initialize();
    await client.request("tools/call", { name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    seen.length = 0;
    const params = {
      name: "use_tool",
      arguments: { tool: { toolbox: "dev", server: "fx", name: "progress" }, arguments: { steps: 3 } },
      _meta: { progressToken: "client-token-7" },
    };
    const result = await client.request("tools/call", params) as CallToolResult;
    assert.equal(okText(result), "A made 3 steps");
    assert.deepEqual(seen.map((message) => message.method ?? "response"), [
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "response",
    ]);
    assert.deepEqual(
      seen.slice(0, 3).map((message) => message.params),
      [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}`, progressToken: "client-token-7" })),
    );
  } finally {
    await client.close();
  }
});

test("lifecycle: an SDK client receives the progress too", async () => {
  await withWorkbench(one(fx("A")), async (session) => {
    opened(await openToolbox(session, "dev"));
    const seen: number[] = [];
    const result = await session.client.callTool(
      { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "fx", name: "progress" }, arguments: { steps: 3 } } },
      undefined,
      { onprogress: (progress) => seen.push(progress.progress) },
    ) as CallToolResult;
    assert.equal(okText(result), "A made 3 steps");
    assert.deepEqual(seen, [1, 2, 3]);
  });
});

test("lifecycle: a cancelled use_tool cancels the downstream request", async () => {
  await withWorkbench(one(fx("A")), async (session) => {
    opened(await openToolbox(session, "dev"));
    const controller = new AbortController();
    const sleeping = firstProgress("the sleep");
    const call = session.client.callTool(
      { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "fx", name: "sleep" }, arguments: { ms: 20_000 } } },
      undefined,
      { signal: controller.signal, onprogress: sleeping.onprogress },
    );
    // Cancelled once the server has the call: one cancelled before it got there never reaches it.
    await sleeping.begun();
    controller.abort("changed my mind");
    await assert.rejects(call);
    await eventually("the server to see the cancellation", async () => okText(await useTool(session, "dev", "fx", "cancellations")), (n) => n === "1");
  });
});

test("lifecycle: a downstream's stderr reaches ours line by line, prefixed with [toolbox/server]", async () => {
  await withWorkbench(one(fx("A")), async (session) => {
    opened(await openToolbox(session, "dev"));
    await useTool(session, "dev", "fx", "log", { text: "first line\nsecond line" });
    const lines = /^\[dev\/fx\] first line\n\[dev\/fx\] second line$/m;
    await eventually("both lines on the workbench's stderr", () => session.stderr(), (text) => lines.test(text));
  });
});

test("lifecycle: a sampling request from a server gets a JSON-RPC error, so it never waits", async () => {
  await withWorkbench(one(fx("A")), async (session) => {
    opened(await openToolbox(session, "dev"));
    assert.equal(okText(await useTool(session, "dev", "fx", "ask")), "ask failed: MCP error -32601: Method not found");
  });
});

test("lifecycle: a result over maxMessageBytes fails that call only; the connection stays usable", async () => {
  await withWorkbench(one(fx("A", { maxMessageBytes: 100_000 })), async (session) => {
    opened(await openToolbox(session, "dev"));
    const text = errorText(await useTool(session, "dev", "fx", "blob", { bytes: 200_000 }));
    assert.match(text, /^Error executing tool 'blob' in server 'fx' \(toolbox 'dev'\): Message of \d+ bytes exceeds the limit of 100000 bytes$/);
    assert.equal(okText(await useTool(session, "dev", "fx", "echo", { text: "still here" })), "A: still here");
  });
});

test("lifecycle: 200 concurrent calls across two servers each get their own answer", async () => {
  const config = { toolboxes: { dev: { description: "d", mcpServers: { a: fx("A"), b: fx("B") } } } };
  await withWorkbench(config, async (session) => {
    opened(await openToolbox(session, "dev"));
    const calls = Array.from({ length: 200 }, (_, i) => {
      const server = i % 2 === 0 ? "a" : "b";
      return useTool(session, "dev", server, "echo", { text: `call-${i}` }).then((result) => [i, server, okText(result)]);
    });
    for (const [i, server, text] of await Promise.all(calls)) {
      assert.equal(text, `${server === "a" ? "A" : "B"}: call-${i}`);
    }
  });
});

test("lifecycle: 20 concurrent opens spawn each server once", async () => {
  const log = spawnLog();
  const config = { toolboxes: { dev: { description: "d", mcpServers: { a: fx("A", {}, log.env), b: fx("B", {}, log.env) } } } };
  await withWorkbench(config, async (session) => {
    const results = await Promise.all(Array.from({ length: 20 }, () => openToolbox(session, "dev")));
    const texts = new Set(results.map((result) => okText(result)));
    assert.equal(texts.size, 1);
    const spawned = log.spawned();
    assert.deepEqual(spawned.map((line) => line.split(" ")[0]), ["A", "B"], `one start per server: ${spawned}`);
    assert.deepEqual(spawned.map((line) => Number(line.split(" ")[1])).sort((a, b) => a - b), fixturePids(session));
  });
});
