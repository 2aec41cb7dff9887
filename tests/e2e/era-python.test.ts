/**
 * The era matrix's Python cells: the Python MCP SDK (`mcp` 2.3) in front of the workbench in each of
 * its modes (legacy: initialize; auto: server/discover, falling back; 2026-07-28: pinned, no probe),
 * the matrix's servers behind it. tests/fixtures/py-client.py runs the session and prints a JSON
 * line per step. Python is WORKBENCH_PYTHON, else python3 on PATH; where it has no `mcp` 2.3 or
 * later, the cells skip and say why (under Deno a skip reads as a pass, so the name says it too).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { eraConfig, SERVERS, stopEraServers } from "../helpers/era-servers.ts";
import { runToEnd } from "../helpers/process.ts";
import { fixture, workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";

after(async () => {
  await stopEraServers();
  removeTempDirs();
});

const MODES = ["legacy", "auto", "2026-07-28"] as const;
/** What each mode negotiates, and whether it has the instructions (a pinned client sends no server/discover, so it never gets them). */
const EXPECTED = {
  legacy: { version: "2025-11-25", instructions: true },
  auto: { version: "2026-07-28", instructions: true },
  "2026-07-28": { version: "2026-07-28", instructions: false },
};
const PROBE = "import sys, importlib.metadata as m, mcp; print(sys.executable); print(m.version('mcp'))";

/** The Python to run the client with (its own absolute path, as the client's PATH will not find it), or why there is none. */
function findPython(): { python: string; version: string } | { skip: string } {
  const named = process.env.WORKBENCH_PYTHON ?? "python3";
  const probe = spawnSync(named, ["-c", PROBE], { encoding: "utf8", timeout: 20_000 });
  if (probe.error || probe.status !== 0) {
    const why = probe.error?.message ?? probe.stderr.trim().split("\n").at(-1);
    return { skip: `"${named}" cannot import mcp (${why}): set WORKBENCH_PYTHON to a Python with mcp 2.3 or later` };
  }
  const [python, version] = probe.stdout.trim().split("\n");
  const [major, minor] = version.split(".").map(Number);
  if (major < 2 || (major === 2 && minor < 3)) {
    return { skip: `"${named}" has mcp "${version}": the cells need 2.3 or later (set WORKBENCH_PYTHON)` };
  }
  return { python, version };
}

const found = findPython();
const skip = "skip" in found ? found.skip : false;
if (skip) console.log(`SKIPPED: the era matrix's Python SDK cells: ${skip}`);

const plan = {
  toolbox: "era",
  servers: Object.entries(SERVERS).map(([name, server]) => ({ name, wait: server.wait, stats: server.cancelled.name })),
};

interface Step {
  step: string;
  [field: string]: unknown;
}

for (const mode of MODES) {
  const name = "skip" in found
    ? `era matrix: a Python SDK client, mode ${mode} (skipped: no Python with mcp 2.3, see the SKIPPED line)`
    : `era matrix: a Python SDK ${found.version} client, mode ${mode}`;
  test(name, { skip }, async (t) => {
    if ("skip" in found) return;
    const path = writeConfig(tempDir(), await eraConfig());
    const { command, args } = workbenchCommand(["--config", path]);
    const started = performance.now();
    const run = await runToEnd(found.python, [fixture("py-client.py"), mode, JSON.stringify(plan), "--", command, ...args], {
      env: workbenchEnv(),
      timeoutMs: 90_000,
    });
    console.log(`Python SDK client, mode ${mode}: ${Math.round(performance.now() - started)} ms`);
    const steps: Step[] = run.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
    const step = (kind: string, server?: string) => steps.find((s) => s.step === kind && (!server || s.server === server));
    const context = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    assert.equal(run.code, 0, context);
    assert.ok(step("done"), context);
    const connected = step("connected")!;
    assert.equal(connected.version, EXPECTED[mode].version, context);
    if (EXPECTED[mode].instructions) assert.match(String(connected.instructions), /- era: Servers of both eras/);
    else assert.equal(connected.instructions, null);
    assert.equal(step("opened")?.servers_connected, Object.keys(SERVERS).length, context);
    for (const [server, kind] of Object.entries(SERVERS)) {
      await t.test(`python ${mode} → ${server}`, () => {
        const seen = step("server", server);
        assert.ok(seen, context);
        assert.match(String(seen.echoed), kind.echoed);
        assert.equal(seen.confirmed, "deploy confirmed by Ada");
        const wait = seen.wait as { finished: string | null; before: string; after: string };
        assert.equal(wait.finished, null, "the wait finished before it was cancelled");
        assert.equal(kind.cancelled.read(wait.after), kind.cancelled.read(wait.before) + 1, "the server did not see the cancellation");
      });
    }
  });
}
