/**
 * Under Wine: the stop sequence with a server that ignores the end of its input, when taskkill
 * fails (Wine 8's own rejects `/t`, as Windows' may be denied) and when it works (the stand-in),
 * and Ctrl-C during a call. In each, the workbench ends and leaves no process behind.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  cleanUp,
  described,
  connectThroughRelay,
  endInput,
  fixtureServer,
  place,
  type Place,
  startWine,
  suite,
  tagged,
  textOf,
  until,
  waitExit,
  waitUntagged,
  wineEnv,
  winPath,
  writeJson,
} from "./wine.ts";

/**
 * The workbench waits 2 s for a server to leave after its stdin closes, then 2 s after SIGTERM;
 * under Wine each taskkill and each start takes a second or more. Without the fallback it never ends.
 */
const STOP_WITHIN_MS = 20_000;

/** Toolbox `demo` with one stubborn server: it outlives its stdin by a minute. */
function stubbornConfig(at: Place): string {
  return writeJson(`${at.dir}/workbench-config.json`, {
    toolboxes: { demo: { description: "A server that ignores the end of its input", mcpServers: { st: fixtureServer(at, "stubborn") } } },
  });
}

const useTool = (name: string) => ({ name: "use_tool", arguments: { tool: { toolbox: "demo", server: "st", name }, arguments: {} } });

/**
 * A session that started the stubborn server and its grandchild; then the client closes its end.
 * Returns the server's Windows pid, and how long the workbench took to end after that.
 */
async function closeOnStubbornServer(at: Place, env: Record<string, string>): Promise<{ serverPid: number; stoppedMs: number }> {
  const session = await connectThroughRelay(["--config", winPath(stubbornConfig(at))], { env });
  await session.client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "demo" } });
  const serverPid = Number(textOf(await session.client.callTool(useTool("pid"))));
  assert.match(textOf(await session.client.callTool(useTool("grandchild"))), /^\d+$/);
  assert.ok(tagged(at.tag).some(({ command }) => /fixture-host\.exe sleep/.test(command)), "the grandchild runs");
  const closed = performance.now();
  endInput(session);
  // The relay ends when the workbench does.
  assert.ok(await waitExit(session.pid, STOP_WITHIN_MS), `the workbench still runs ${STOP_WITHIN_MS} ms after its stdin closed`);
  assert.match(session.stderr(), /stopping \(the client closed the connection\)/);
  return { serverPid, stoppedMs: performance.now() - closed };
}

test("wine: the client goes, a server ignores the end of its input, Wine's taskkill fails: the server is ended, none left", async () => {
  const at = place();
  try {
    const { stoppedMs } = await closeOnStubbornServer(at, wineEnv(at));
    assert.deepEqual(await waitUntagged(at.tag, 10_000), [], "no process is left");
    assert.ok(stoppedMs > 2_000, `it waited for the server first (${stoppedMs} ms)`);
  } finally {
    cleanUp(at);
  }
});

test("wine: with a taskkill that takes /t, the workbench ends the server's tree by 'taskkill /pid N /t /f', nothing is left", async () => {
  const at = place();
  try {
    const log = `${at.dir}/taskkill.log`;
    const env = wineEnv(at, { WINEDLLOVERRIDES: `${process.env.WINEDLLOVERRIDES};taskkill.exe=n`, WORKBENCH_TASKKILL_LOG: winPath(log) });
    const { serverPid } = await closeOnStubbornServer(at, env);
    assert.deepEqual(await waitUntagged(at.tag, 10_000), [], "no process is left");
    assert.equal(readFileSync(log, "utf8").split("\n")[0], `/pid ${serverPid} /t /f`);
  } finally {
    cleanUp(at);
  }
});

test("wine: Ctrl-C during a call stops the servers, one ignoring the end of its input, and exits 130; nothing is left", async () => {
  const at = place();
  try {
    const config = winPath(stubbornConfig(at));
    const running = startWine([winPath(suite.workbench), "call", "demo", "st", "sleep", '{"ms": 60000}', "--config", config], {
      env: wineEnv(at),
      timeoutMs: 60_000,
    });
    await until(() => tagged(at.tag).some(({ command }) => / stubborn /.test(command)), 30_000, "the server to start");
    // The server is up; its answer to initialize and the call itself follow within a few hundred ms.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const pressed = performance.now();
    process.kill(running.pid, "SIGINT");
    const ran = await running.done;
    const after = performance.now() - pressed;
    assert.match(ran.stderr, /Stopping its servers \(SIGINT\)/);
    assert.equal(ran.code, 130, described(ran));
    assert.ok(after < STOP_WITHIN_MS, `it ended ${after} ms after Ctrl-C`);
    assert.deepEqual(await waitUntagged(at.tag, 10_000), [], "no process is left");
  } finally {
    cleanUp(at);
  }
});
