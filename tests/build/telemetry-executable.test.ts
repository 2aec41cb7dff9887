/**
 * The exporter in a compiled executable: a tiny program that imports src/telemetry statically,
 * built with the release's `bun build --compile` flags, sends its span and histogram to a receiver
 * in both encodings (a Bun-compiled program drops what it cannot see at build time, claude-code#50567).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { BUN_COMPILE_FLAGS } from "../../scripts/release/compile.ts";
import { fixture, removeAtExit, repoRoot } from "../helpers/runtime.ts";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlp-receiver.ts";

const dir = mkdtempSync(`${tmpdir()}/workbench-telemetry-exe-`);
removeAtExit(dir);
const executable = `${dir}/telemetry-entry`;
const built = spawnSync(`${repoRoot}/node_modules/.bin/bun`, ["build", ...BUN_COMPILE_FLAGS, fixture("telemetry-entry.ts"), "--outfile", executable], {
  encoding: "utf8",
});

const receivers: OtlpReceiver[] = [];
after(() => Promise.all(receivers.map((receiver) => receiver.close())));

function run(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // An empty environment but ours: the executable needs nothing else.
    execFile(executable, [], { env, timeout: 30_000 }, (error, stdout, stderr) => (error ? reject(error) : resolve({ stdout, stderr })));
  });
}

for (const protocol of ["http/protobuf", "http/json"]) {
  test(`executable: the compiled exporter sends a span and a histogram (${protocol})`, async () => {
    assert.equal(built.status, 0, built.stderr);
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const { stdout, stderr } = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
    assert.equal(stderr, "");
    const report = JSON.parse(stdout);
    assert.equal(report.tracing, true);
    assert.deepEqual(report.stats.spans, { queued: 0, exported: 1, dropped: 0, failed: 0 });
    assert.deepEqual(receiver.problems, []);
    assert.deepEqual(receiver.spans.map((span) => [span.name, span.kind, span.attributes["gen_ai.tool.name"]]), [["tools/call compiled-echo", 2, "compiled-echo"]]);
    assert.deepEqual(receiver.histograms.map((histogram) => histogram.name), ["mcp.server.operation.duration"]);
  });
}

test("executable: without an endpoint the compiled program sends nothing and says nothing", async () => {
  assert.equal(built.status, 0, built.stderr);
  const { stdout, stderr } = await run({});
  assert.equal(stderr, "");
  assert.deepEqual(JSON.parse(stdout), { warnings: [], tracing: false, stats: {} });
});
