/**
 * A client that stops reading while paged results pile up (issue 54): 300 `use_tool` echo calls
 * of 1 MiB each, written at once with the default maxResultTokens (each answer is a page), and
 * not read for 12 s, keep the executable's peak RSS under 300 MiB from the stall to the last answer
 * (287 to 401 MiB before: the results pushed out of the session's store waited for the collector, see
 * StoreLimits.collect); every call is answered once,
 * and the results the session still keeps (its store is bounded: the newest) are read to their
 * end with read_result, equal to what the server answered. Against WORKBENCH_BIN on Linux only:
 * the source under `bun` or `deno run` holds far more for its compiler. Figures:
 * `bun scripts/paged-unread.ts --runs 3` (docs/benchmarks.md).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import process from "node:process";
import { pagedUnread } from "../../scripts/bench/paged-unread.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

const PEAK_LIMIT_MIB = 300;
const MiB = 1024 * 1024;

const skip = !process.env.WORKBENCH_BIN
  ? "set WORKBENCH_BIN to a built executable (bun scripts/build.ts)"
  : !existsSync("/proc/self/status")
  ? "needs Linux /proc to read VmRSS"
  : false;
if (skip) console.log(`SKIPPED: paged results to a client that stops reading: ${skip}`);

// Made by the test, removed after it: a folder made at load stayed behind where the test skipped.
after(removeTempDirs);

test("paged results to a client that stops reading: 300 unread echoes of 1 MiB stay under 300 MiB, each answered once, the kept ones read to their end", { skip, timeout: 240_000 }, async (t) => {
  if (skip) return;
  const dir = tempDir();
  const echo = fixtureServer("bench-server.ts", { env: { BENCH_LABEL: "echo" } });
  writeFileSync(`${dir}/workbench-config.json`, JSON.stringify({ toolboxes: { dev: { mcpServers: { echo } } } }));
  const run = await pagedUnread({
    command: process.env.WORKBENCH_BIN!,
    args: ["--config", `${dir}/workbench-config.json`],
    env: { ...process.env, WORKBENCH_CACHE_DIR: `${dir}/cache` } as Record<string, string>,
    cwd: dir,
    calls: 300,
    textChars: MiB,
    stallMs: 12_000,
    expected: (text) => text,
    toolbox: "dev",
    server: "echo",
  });
  const peak = run.peakBytes / MiB;
  t.diagnostic(
    `peak ${peak.toFixed(0)} MiB (RSS ${(run.baselineBytes / MiB).toFixed(0)} MiB before); answered once ${run.answeredOnce}, ` +
      `paged ${run.paged}, read whole ${run.readWhole}, gone ${run.gone}; drained in ${run.drainMs} ms`,
  );
  assert.deepEqual({ missing: run.missing, twice: run.twice, wrong: run.wrong, readWrong: run.readWrong }, { missing: [], twice: [], wrong: [], readWrong: [] });
  assert.equal(run.answeredOnce, 300);
  assert.equal(run.paged, 300);
  // The store keeps 64 MiB of strings (two bytes a character): the newest 31 or 32 results of 1 MiB.
  assert.ok(run.readWhole >= 30, `${run.readWhole} results read to their end with read_result`);
  assert.equal(run.readWhole + run.gone, 300);
  assert.ok(peak < PEAK_LIMIT_MIB, `peak RSS ${peak.toFixed(0)} MiB, over ${PEAK_LIMIT_MIB} MiB`);
});
