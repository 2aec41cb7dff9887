/**
 * A client that writes many calls without reading its stdout. Large ones (issue 19): the requests
 * the workbench has read wait to be written to the server, whose answers wait to be written to the
 * client. Both backlogs stop the reading of the client's stdin, so memory stays bounded end to
 * end (before: a peak of 742 to 899 MB for this input), and every answer comes on resuming. Small
 * ones (issue 33): a server that keeps up leaves few bytes waiting, but each call in flight costs
 * memory; past 1,024 of them the client's stdin is not read (before: 994 MiB for 120,000 calls).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import process from "node:process";
import { fixtureServer, npmServer, workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { startRaw } from "../helpers/raw-session.ts";
import { residentBytes } from "../../scripts/bench/memory.ts";
import { sleep } from "../helpers/toolbox.ts";
import { HEAVY_TIMEOUT_MS } from "../helpers/peak.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";
import { stalledClient } from "../../scripts/bench/stalled.ts";

const MiB = 1024 * 1024;
const CALLS = 300;
/** Past the raw session's initialize (id 1). */
const FIRST_ID = 100;
/** The bound for a stalled reader. */
const PEAK_LIMIT_MIB = 300;
/** The peak is read once it has not grown for this long (the pipes are full), or at the bound. */
const STEADY_MS = 3_000;
const MEASURE_BOUND_MS = 90_000;

const call = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "use_tool",
      arguments: { tool: { toolbox: "dev", server: "fx", name: "echo" }, arguments: { text: `${id}:`.padEnd(MiB, "x") } },
    },
  }) + "\n";

test("e2e stalled client: 300 calls of 1 MiB written without reading keep the peak RSS under 300 MB, and all are answered", { timeout: HEAVY_TIMEOUT_MS }, async (t) => {
  await largeCallsUnread(t, 0);
});

// Issue 38: with result pages (the default maxResultTokens), each answer is a page and the rest of
// the result is kept; both count against the bound of what waits for the client (before: 1,009 MiB).
test("e2e stalled client: 300 calls of 1 MiB written unread with default result pages stay under 300 MB, and each is answered once", { timeout: HEAVY_TIMEOUT_MS }, async (t) => {
  await largeCallsUnread(t, undefined);
});

/** `maxResultTokens` 0: the 1 MiB echoes come back whole; undefined: the default cuts each to a page. */
async function largeCallsUnread(t: { skip(reason: string): void; diagnostic(text: string): void }, maxResultTokens: number | undefined): Promise<void> {
  if (process.platform !== "linux") {
    t.skip("VmHWM is read from /proc (Linux only)");
    return;
  }
  // Whole answers: the server stops reading for a while after its first echo, so the calls pile up
  // on our side too. Pages: the server keeps up, so answers pile up (the case).
  const server = fixtureServer("fixture-server.ts", { env: { FIXTURE_STALL_STDIN_MS: maxResultTokens === 0 ? "5000" : "0" } });
  const session = await startRaw({ ...(maxResultTokens !== undefined && { maxResultTokens }), toolboxes: { dev: { mcpServers: { fx: server } } } });
  try {
    await session.write(JSON.stringify({ jsonrpc: "2.0", id: "open", method: "tools/call", params: { name: "open_toolbox", arguments: { toolbox_name: "dev" } } }) + "\n");
    await session.answer("open", 60_000);
    await session.write(call(FIRST_ID - 1));
    await session.answer(FIRST_ID - 1, 60_000);
    session.pause();
    // Not awaited one by one: the workbench is meant to stop reading, and the writes to wait.
    session.child.stdin!.on("error", () => {});
    for (let id = FIRST_ID; id < FIRST_ID + CALLS; id++) void session.write(call(id)).catch(() => {});
    const started = Date.now();
    let peak = 0;
    let steadySince = Date.now();
    while (Date.now() - started < MEASURE_BOUND_MS && Date.now() - steadySince < STEADY_MS) {
      await sleep(250);
      const now = residentBytes(session.pid, "VmHWM");
      if (now > peak) [peak, steadySince] = [now, Date.now()];
    }
    t.diagnostic(`peak VmHWM ${(peak / MiB).toFixed(1)} MiB while ${CALLS} calls of 1 MiB were written unread (maxResultTokens ${maxResultTokens ?? "default"})`);
    assert.ok(peak / 1e6 < PEAK_LIMIT_MIB, `peak VmHWM ${(peak / 1e6).toFixed(0)} MB, over ${PEAK_LIMIT_MIB} MB`);
    session.resume();
    for (let id = FIRST_ID; id < FIRST_ID + CALLS; id++) {
      const reply = await session.answer(id, 120_000);
      const text: string = reply.result?.content?.[0]?.text ?? JSON.stringify(reply).slice(0, 300);
      assert.equal(reply.result?.isError, undefined, `call ${id}: ${JSON.stringify(reply).slice(0, 300)}`);
      const sent = `${id}:`.padEnd(MiB, "x");
      if (maxResultTokens === 0) assert.ok(text.endsWith(`: ${sent}`), `call ${id} answered ${JSON.stringify(text.slice(0, 40))}, ${text.length} characters`);
      else {
        assert.ok(text.startsWith(`fixture: ${id}:x`), `call ${id} answered ${JSON.stringify(text.slice(0, 40))}`);
        assert.match(reply.result.content.at(-1).text, /over maxResultTokens/);
      }
    }
    await sleep(200);
    const ids = session.replies.map((reply) => reply.id).filter((id) => typeof id === "number" && id >= FIRST_ID);
    assert.equal(ids.length, CALLS, "each call is answered once");
    assert.equal(new Set(ids).size, CALLS);
  } finally {
    await session.close();
    rmSync(session.dir, { recursive: true, force: true });
  }
}

const SMALL_CALLS = 120_000;
/** The bound for small calls written unread. */
const SMALL_PEAK_LIMIT_MIB = 150;

test(`e2e stalled client: ${SMALL_CALLS} small calls written without reading keep the peak RSS under ${SMALL_PEAK_LIMIT_MIB} MiB, and each is answered once`, { timeout: HEAVY_TIMEOUT_MS }, async (t) => {
  if (process.platform !== "linux") {
    t.skip("VmHWM is read from /proc (Linux only)");
    return;
  }
  const dir = tempDir();
  try {
    const path = writeConfig(dir, { toolboxes: { dev: { mcpServers: { everything: npmServer("everything") } } } });
    const run = await stalledClient({
      ...workbenchCommand(["--config", path]),
      env: workbenchEnv(),
      cwd: dir,
      calls: SMALL_CALLS,
      text: (id) => `${id}:small`,
      tool: { toolbox: "dev", server: "everything", name: "echo" },
      argumentsFor: (message) => ({ message }),
      expected: (message) => `Echo: ${message}`,
    });
    const peak = run.peakBytes / MiB;
    t.diagnostic(`peak VmHWM ${peak.toFixed(1)} MiB (${(run.baselineBytes / MiB).toFixed(1)} before) with ${run.written} calls written unread; all answered in ${run.drainMs} ms`);
    assert.ok(peak < SMALL_PEAK_LIMIT_MIB, `peak VmHWM ${peak.toFixed(1)} MiB, over ${SMALL_PEAK_LIMIT_MIB} MiB`);
    assert.deepEqual({ missing: run.missing, twice: run.twice, wrong: run.wrong }, { missing: [], twice: [], wrong: [] });
    assert.equal(run.answeredOnce, SMALL_CALLS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
