/**
 * What 1,000 idle sessions of `serve --http` hold (issue 42): the executable's VmRSS grows by no more
 * than the bench's goal once they have initialized, measured as figure 10 measures it
 * (scripts/bench/idle-sessions.ts: bearer-token clients, 20 sessions opened and ended first, the
 * median of 5 samples after 2 s). Measured 40 to 45 MiB; a change that sent each session's short
 * hashes (its listing-cache file names) through the runtime's SHA-256 made it 47 to 53. Only against
 * a built executable (WORKBENCH_BIN) on Linux (/proc), like tests/e2e/memory.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import process from "node:process";
import { createSetup } from "../../scripts/bench/setup.ts";
import { startServe } from "../../scripts/bench/serve.ts";
import { IDLE_SESSIONS, idleConfig, idleResident } from "../../scripts/bench/idle-sessions.ts";
import { IDLE_SESSIONS_GOAL_MIB } from "../../scripts/bench/serve-report.ts";
import { MiB } from "../../scripts/bench/stats.ts";

const skip = !process.env.WORKBENCH_BIN
  ? "set WORKBENCH_BIN to a built executable (bun scripts/build.ts)"
  : !existsSync("/proc/self/status")
  ? "needs Linux /proc to read VmRSS"
  : false;
if (skip) console.log(`SKIPPED: the memory of idle HTTP sessions: ${skip}`);

test(`idle sessions: ${IDLE_SESSIONS} initialized sessions of serve --http add at most ${IDLE_SESSIONS_GOAL_MIB} MiB to the executable`, { skip, timeout: 120_000 }, async () => {
  if (skip) return;
  const setup = createSetup();
  try {
    const { configPath, tokens } = idleConfig(setup);
    const served = await startServe({ command: process.env.WORKBENCH_BIN!, args: [] }, configPath, setup.workbenchEnv, setup.dir);
    try {
      const { before, after } = await idleResident(served.url, served.pid, tokens);
      const added = (after - before) / MiB;
      console.log(`${IDLE_SESSIONS} idle sessions: ${(before / MiB).toFixed(1)} MiB before, ${(after / MiB).toFixed(1)} with them (+${added.toFixed(1)})`);
      assert.ok(added <= IDLE_SESSIONS_GOAL_MIB, `${IDLE_SESSIONS} idle sessions added ${added.toFixed(1)} MiB`);
    } finally {
      await served.stop();
    }
  } finally {
    setup.cleanup();
  }
});
