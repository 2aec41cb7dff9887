/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
 * with mcp-workbench as the client: each client scenario's server is driven through our adapter
 * (tests/conformance/adapter.ts), which configures, logs in and calls as a user would. The suite's
 * runner needs Bun (fs.globSync), under either test runtime; the workbench runs as the other e2e
 * tests run it (source under the test's runtime, or WORKBENCH_BIN). Scenarios run two at a time,
 * all of them started by the first test. Every scenario must pass except
 * those tests/conformance/scenarios.json lists as expected failures, which must still fail.
 * All 26 take about 20 s (two at a time), so every one runs in every test run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { repoRoot, workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";

const BUN = `${repoRoot}/node_modules/.bin/bun`;
const RUNNER = `${repoRoot}/node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const ADAPTER = `${repoRoot}/tests/conformance/adapter.ts`;
/** The runner's own limit for the client; ours for the whole scenario is above it. */
const CLIENT_TIMEOUT_MS = 40_000;
const SCENARIO_TIMEOUT_MS = 50_000;
const PARALLEL = 2;
/** For the test that waits for the whole run: about 20 s, more on a loaded machine. */
const RUN_TIMEOUT_MS = 300_000;

const listed = JSON.parse(readFileSync(`${repoRoot}/tests/conformance/scenarios.json`, "utf8")) as {
  scenarios: string[];
  expectedFailures: Record<string, string>;
};
const chosen = listed.scenarios;

interface Outcome {
  passed: boolean;
  ms: number;
  output: string;
}

function runScenario(scenario: string): Promise<Outcome> {
  const started = Date.now();
  const cwd = mkdtempSync(`${tmpdir()}/workbench-conformance-run-`);
  const env = {
    ...workbenchEnv(),
    NO_COLOR: "1",
    WORKBENCH_COMMAND: JSON.stringify(Object.values(workbenchCommand()).flat()),
  };
  const args = [RUNNER, "client", "--command", `${BUN} ${ADAPTER}`, "--scenario", scenario, "--timeout", String(CLIENT_TIMEOUT_MS)];
  // The runner may write results/ into its working folder: a temporary one, removed when it ends.
  const child = spawn(BUN, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
  const timer = setTimeout(() => child.kill("SIGKILL"), SCENARIO_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.once("close", (code) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      resolve({ passed: code === 0 && output.includes("OVERALL: PASSED"), ms: Date.now() - started, output });
    });
  });
}

/**
 * Every scenario, PARALLEL at a time, started by the first test that runs; each test waits for all
 * of them (the first one so takes the whole run): none is left running when the tests end, even
 * with a filter that leaves some tests out.
 */
let run: Promise<Map<string, Outcome>> | undefined;
function runAll(): Promise<Map<string, Outcome>> {
  run ??= (async () => {
    const outcomes = new Map<string, Outcome>();
    const queue = [...chosen];
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) outcomes.set(name, await runScenario(name));
    };
    const began = Date.now();
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    process.stderr.write(`conformance: ${chosen.length} scenario(s) in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
    return outcomes;
  })();
  return run;
}

test("conformance: the pinned suite lists exactly the client scenarios we run; the expected failures are among them", () => {
  const list = spawnSync(BUN, [RUNNER, "list"], { encoding: "utf8", env: { ...workbenchEnv(), NO_COLOR: "1" }, timeout: 30_000 });
  const client = list.stdout.split("Client scenarios")[1] ?? "";
  const names = [...client.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
  assert.deepEqual(names, listed.scenarios, list.stderr);
  for (const name of Object.keys(listed.expectedFailures)) assert.ok(names.includes(name), name);
});

for (const scenario of chosen) {
  const reason = listed.expectedFailures[scenario];
  test(`conformance: ${scenario} ${reason ? "fails as expected" : "passes"}`, { timeout: RUN_TIMEOUT_MS }, async () => {
    const { passed, output, ms } = (await runAll()).get(scenario)!;
    if (reason) assert.ok(!passed, `${scenario} passes now: remove it from expectedFailures in tests/conformance/scenarios.json`);
    else assert.ok(passed, `${scenario} failed (${ms} ms):\n${output.slice(-6_000)}`);
  });
}
