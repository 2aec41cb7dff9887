/** The benchmark's pieces, quickly: arguments, statistics, the fixture, and a few calls through the workbench. */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { parseBenchArgs } from "../../scripts/bench/args.ts";
import { median, percentile } from "../../scripts/bench/stats.ts";
import { RpcClient } from "../../scripts/bench/rpc-client.ts";
import { createSetup, direct, textOf, viaWorkbench } from "../../scripts/bench/setup.ts";
import { measureLatency } from "../../scripts/bench/calls.ts";
import { measureBlobs } from "../../scripts/bench/blobs.ts";
import { measureHttp } from "../../scripts/bench/http.ts";
import { IDLE_SESSIONS, measureServe } from "../../scripts/bench/serve.ts";
import { serveChecks, serveRows } from "../../scripts/bench/serve-report.ts";
import { QUICK } from "../../scripts/bench/plan.ts";
import { checksTable, checkTargets, figuresTable, type Results } from "../../scripts/bench/report.ts";
import { fixtureCommand } from "../../scripts/bench/targets.ts";
import { residentBytes } from "../../scripts/bench/memory.ts";
import { runtimeName } from "../helpers/runtime.ts";

/** A plan small enough for a unit test: a handful of calls and one small blob. */
const TINY = {
  ...QUICK,
  warmupCalls: 2,
  sequentialCalls: 10,
  concurrentCalls: 20,
  inFlight: 4,
  blobMiB: [1],
  blobRepeats: 1,
};

test("bench: arguments pick the target, --quick, --context and --out; anything else is refused", () => {
  assert.deepEqual(parseBenchArgs([]), { target: "bun", quick: false, context: false, chain: false, search: false });
  assert.deepEqual(parseBenchArgs(["--target", "deno", "--quick", "--out=/tmp/x.json"]), {
    target: "deno",
    quick: true,
    context: false,
    chain: false,
    search: false,
    out: "/tmp/x.json",
  });
  assert.equal(parseBenchArgs(["--context"]).context, true);
  assert.equal(parseBenchArgs(["--chain"]).chain, true);
  assert.equal(parseBenchArgs(["--search"]).search, true);
  assert.throws(() => parseBenchArgs(["--target", "node"]), /--target must be one of bun, deno, bin/);
  assert.throws(() => parseBenchArgs(["--out"]), /--out needs a value/);
  assert.throws(() => parseBenchArgs(["--fast"]), /unknown argument '--fast'/);
});

test("bench: medians and nearest-rank percentiles", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
  assert.equal(percentile(hundred, 50), 50);
  assert.equal(percentile(hundred, 99), 99);
  assert.equal(percentile([7], 99), 7);
});

test("bench: the fixture answers initialize, tools/list and its three tools without an SDK", async () => {
  const client = RpcClient.start(fixtureCommand("t"));
  try {
    const init = await client.initialize(10_000);
    assert.deepEqual(init.serverInfo, { name: "bench-t", version: "1.0.0" });
    const { tools } = await client.request("tools/list", {}) as { tools: { name: string }[] };
    assert.deepEqual(tools.map((tool) => tool.name), ["echo", "blob", "sleep"]);
    const call = (name: string, args: Record<string, unknown>) =>
      client.request("tools/call", { name, arguments: args });
    assert.deepEqual(await call("echo", { text: "hi" }), { content: [{ type: "text", text: "hi" }] });
    const blob = await call("blob", { bytes: 100_000 }) as { content: { text: string }[] };
    assert.equal(blob.content[0].text, "x".repeat(100_000));
    assert.deepEqual(await call("sleep", { ms: 5 }), { content: [{ type: "text", text: "slept 5 ms" }] });
    assert.ok(residentBytes(client.pid) > 0 || process.platform !== "linux");
  } finally {
    await client.close();
  }
});

test("bench: terminateAll ends the processes the bench started, by pid", async () => {
  const client = RpcClient.start(fixtureCommand("t"));
  await client.initialize(10_000);
  RpcClient.terminateAll();
  await assert.rejects(client.request("ping", {}, 5_000), /exited \(SIGTERM\)/);
  await client.close();
});

test("bench: calls and a blob through the workbench match the same calls made directly", async () => {
  const setup = createSetup();
  try {
    const workbench = await viaWorkbench(runtimeName, setup);
    const baseline = await direct();
    try {
      assert.equal(textOf(await workbench.callTool("echo", { text: "through" })), "through");
      const pair = { workbench, direct: baseline };
      const latency = await measureLatency(pair, TINY);
      assert.deepEqual(latency.calls, { workbench: 10, direct: 10 });
      assert.ok(latency.p50Us.workbench > 0 && latency.p50Us.direct > 0);
      const blobs = await measureBlobs(pair, TINY);
      assert.equal(blobs.sizes[0].error, undefined);
      assert.ok(blobs.sizes[0].ratio > 0);
    } finally {
      await baseline.close();
      await workbench.close();
    }
  } finally {
    setup.cleanup();
  }
});

test("bench: the HTTP figure measures echo through the workbench and from a direct SDK client", async () => {
  const setup = createSetup();
  try {
    const http = await measureHttp(runtimeName, setup, TINY);
    assert.deepEqual(http.calls, { workbench: 10, direct: 10 });
    assert.ok(http.p50Us.workbench > 0 && http.p50Us.direct > 0);
  } finally {
    setup.cleanup();
  }
});

test("bench: figure 10 serves the workbench over HTTP: echo against stdio, 8 clients x 8 in flight, idle sessions, first answers", { timeout: 120_000 }, async () => {
  const setup = createSetup();
  try {
    const serve = await measureServe(runtimeName, setup, TINY);
    assert.deepEqual(serve.echo.calls, { workbench: 10, direct: 10 });
    assert.ok(serve.echo.p50Us.workbench > 0 && serve.echo.p50Us.direct > 0);
    assert.deepEqual([serve.throughput.clients, serve.throughput.inFlight, serve.throughput.calls], [8, 8, 5]);
    assert.equal(serve.idle.sessions, IDLE_SESSIONS);
    assert.ok(Number.isFinite(serve.idle.bytesPerSession));
    assert.ok(serve.idle.residentBytes > serve.idle.addedBytes);
    assert.equal(serve.firstAnswerMs.sessions, TINY.rounds * 10);
    const rows = serveRows(serve).map((row) => row[0]);
    assert.match(rows[0], /^10 served over HTTP: echo p50/);
    assert.deepEqual(serveChecks(serve).map((check) => check.target), [
      "echo p50 over HTTP vs stdio",
      "HTTP 8 clients x 8 in flight",
      `RSS added by ${IDLE_SESSIONS} idle HTTP sessions`,
    ]);
  } finally {
    setup.cleanup();
  }
});

test("bench: the tables show every figure and a result per target", () => {
  const results = sampleResults();
  const table = figuresTable(results);
  const figures = ["1 spawn", "2 open_toolbox", "3 sequential", "4 echo", "5 blob", "6 RSS", "7 tools/list"];
  const more = ["spawn to server/discover", "peak RSS relaying 32 MiB", "8 executable", "9 Streamable HTTP echo p50"];
  for (const figure of [...figures, ...more]) {
    assert.ok(table.includes(figure), figure);
  }
  const checks = checkTargets(results);
  // The sixth and seventh: start-up by initialize (30 ms) and by server/discover (70 ms).
  const expected = ["PASS", "MISS", "PASS", "PASS", "MISS", "PASS", "MISS", "MISS", "PASS", "PASS", "PASS", "MISS", "PASS"];
  assert.deepEqual(checks.map((check) => check.status), expected);
  assert.ok(checksTable(checks).includes("fails (see figure 5)"));
  assert.ok(table.includes("Message of 67108941 bytes exceeds the limit"), "the reason a blob failed is not shown");
  const fromSource = checkTargets({ ...results, target: "bun" });
  assert.equal(fromSource[5].status, "n/a", "start-up is a target for the executable only");
});

function sampleResults(): Results {
  const ms = (workbench: number, direct: number) => ({ workbench, direct });
  return {
    target: "bin",
    quick: false,
    startedAt: "2026-01-01T00:00:00.000Z",
    durationS: 1,
    machine: {},
    versions: {},
    plan: QUICK,
    startup: { workbenchMs: 30, fixtureMs: 15, modernMs: 70, workbenchSamples: [30], fixtureSamples: [15] },
    openToolbox: { oneServerMs: 20, eightServersMs: 80, rssAfterInitializeMiB: 50, rssAfterOpenEightMiB: 55 },
    latency: { calls: ms(10, 10), p50Us: ms(80, 20), p99Us: ms(500, 100), overheadP50Us: 60 },
    http: { calls: ms(10, 10), p50Us: ms(400, 300), p99Us: ms(900, 700), overheadP50Us: 100 },
    throughput: { calls: ms(20, 20), callsPerSecond: ms(20_000, 100_000), ratio: 0.2 },
    blobs: {
      sizes: [
        { mib: 8, workbenchMs: 40, directMs: 20, ratio: 2 },
        { mib: 32, workbenchMs: 160, directMs: 90, ratio: 1.78 },
        {
          mib: 64,
          workbenchMs: Number.NaN,
          directMs: 200,
          ratio: Number.NaN,
          error: "blob failed: Error executing tool 'blob': Message of 67108941 bytes exceeds the limit",
        },
      ],
      ratio32over8: 4,
    },
    blobPeak: { blobMiB: 32, beforeMiB: 60, peakMiB: 120, peakSamples: [120] },
    context: {
      toolboxes: 3,
      toolsListBytes: 1300,
      instructionsBytes: 460,
      alwaysBytes: 1760,
      openToolboxBytes: 1100,
      downstreamToolsBytes: 1000,
      downstreamTools: 5,
      openToolboxRatio: 1.1,
      perServerBytes: {},
      reference: {
        tools: 36,
        flatBytes: 30_000,
        fullBytes: 21_000,
        summaryBytes: 4_800,
        instructionsBytes: 400,
        instructionsWithCountsBytes: 430,
        serverInstructionsBytes: 1579,
        fullRatio: 0.7,
        summaryRatio: 0.16,
      },
    },
    executableBytes: 100 * 1024 * 1024,
  };
}
