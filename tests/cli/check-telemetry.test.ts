/** check says where telemetry would go when serving, and what in its settings cannot be used; it never fails for them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { runCheck } from "../../src/cli/check.ts";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { tempDir, writeConfig } from "../helpers/workbench.ts";

test("check: telemetry's targets, and why it is off (an unset variable), said without failing; nothing when none is asked for", async () => {
  const dir = tempDir();
  try {
    const telemetry = { endpoint: "http://127.0.0.1:4318", headers: { authorization: "Bearer ${OTLP_TOKEN}" }, samplerRatio: 0.5 };
    const configPath = writeConfig(dir, { toolboxes: { dev: {} }, telemetry });
    const unset = capturedPlatform({ env: {} });
    assert.equal(await runCheck(unset.fake, { configPath, options: {}, positionals: [] }), 0, unset.out.stderr);
    assert.equal(unset.out.stdout, [
      `Configuration: ${configPath}`,
      "No servers to check",
      "",
      "Telemetry: off",
      "  warning: off: Environment variable OTLP_TOKEN is not set (used at telemetry.headers.authorization)",
      '  warning: telemetry.samplerRatio 0.5 is read only beside a "sampler" of "traceidratio" or "parentbased_traceidratio" in the file: ignored',
      "",
    ].join("\n"));

    const set = capturedPlatform({ env: { OTLP_TOKEN: "s3cret-token" } });
    assert.equal(await runCheck(set.fake, { configPath, options: { "--json": true }, positionals: [] }), 0);
    const report = JSON.parse(set.out.stdout);
    assert.deepEqual(report.telemetry.targets, [
      "traces to http://127.0.0.1:4318/v1/traces (http/protobuf)",
      "metrics to http://127.0.0.1:4318/v1/metrics (http/protobuf)",
    ]);
    assert.ok(!set.out.stdout.includes("s3cret"));

    const none = capturedPlatform({ env: {} });
    await runCheck(none.fake, { configPath: writeConfig(dir, { toolboxes: { dev: {} } }), options: {}, positionals: [] });
    assert.ok(!none.out.stdout.includes("Telemetry"), none.out.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
