/**
 * Bytes in flight toward a remote server that reads slowly (issue 38): the same bound as a stdio
 * server's queue, in the same room (byte-room.ts). Past 16 MiB of requests whose POST is not
 * answered, the client's stdin is not read, as for a stdio server that does not read. Before: 100
 * use_tool calls of 4 MB to such a server all went out at once, each body held by its own POST
 * (peak 963 to 1,009 MiB). Waiting in order and leaving the line: tests/downstream/links/http-room.test.ts.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { openToolbox, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, startWorkbench, textOf } from "../helpers/workbench.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";
import { residentBytes } from "../../scripts/bench/memory.ts";
import { HEAVY_TIMEOUT_MS, MiB, watchPeak } from "../helpers/peak.ts";
import { isDeno } from "../helpers/runtime.ts";

after(removeTempDirs);

/**
 * The bound, held on Bun (the shipped executable, 262 MiB measured; the source under Bun
 * too). Deno runs the source with V8, which keeps the 4 MB strings of calls already sent longer:
 * 315 to 400 MiB on this machine, the same before and after the changes of 2026-11-27, so its run
 * is held to 450 MiB, a check that nothing grows without bound rather than the figure.
 */
const PEAK_LIMIT_MIB = isDeno ? 450 : 400;
const CALLS = 100;
const TEXT_BYTES = 4_000_000;
/** The slow reader's pause after each piece it reads, whatever connection it came on. */
const SLOW = { FIXTURE_SLOW_READ_MS: "10", FIXTURE_LABEL: "slow" };
const linux = process.platform === "linux";

test("remote bytes in flight: 100 use_tool calls of 4 MB to a remote server that reads slowly keep the peak RSS under 400 MiB, and go in turn", { skip: !linux && "VmHWM is read from /proc (Linux only)", timeout: HEAVY_TIMEOUT_MS }, async (t) => {
  const remote = await startHttpFixture(SLOW);
  const session = await startWorkbench({ toolboxes: { dev: { mcpServers: { slow: { url: remote.url() } } } } });
  const calls = new AbortController();
  try {
    await openToolbox(session, "dev");
    assert.equal(textOf(await useTool(session, "dev", "slow", "echo", { text: "warm" })), "slow: warm");
    const before = residentBytes(session.pid) / MiB;
    const watch = watchPeak(session.pid, () => calls.abort());
    const text = "x".repeat(TEXT_BYTES);
    const pending = Array.from({ length: CALLS }, () =>
      session.client.callTool(
        { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "slow", name: "echo" }, arguments: { text } } },
        undefined,
        { signal: calls.signal, timeout: 120_000 },
      ).then((result) => (result.isError ? "error" : "answered"), () => "given up"));
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const peak = watch.stop();
    calls.abort();
    const outcomes: Record<string, number> = {};
    for (const outcome of await Promise.all(pending)) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    t.diagnostic(`peak VmHWM ${peak.toFixed(0)} MiB (RSS ${before.toFixed(0)} MiB before); calls: ${JSON.stringify(outcomes)}`);
    assert.ok(peak < PEAK_LIMIT_MIB, `peak VmHWM ${peak.toFixed(0)} MiB, over ${PEAK_LIMIT_MIB} MiB`);
    // The calls were not refused: they went in turn, as fast as the server reads.
    assert.ok((outcomes.answered ?? 0) > 0, "some calls were answered meanwhile");
    assert.equal(outcomes.error, undefined);
  } finally {
    calls.abort();
    await session.close();
    await remote.stop();
  }
});
