/** The configuration file's "telemetry" key: its keys checked, `${VAR}` expanded in endpoints and headers, an unset one turning telemetry off alone. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../src/config/index.ts";
import { resolveTelemetry } from "../../src/telemetry/index.ts";
import { configErrorOf, loadJson } from "./helpers.ts";

const withTelemetry = (telemetry: unknown) => ({ toolboxes: {}, telemetry });

test("telemetry key: every key is taken as written", () => {
  const telemetry = {
    endpoint: "http://127.0.0.1:4318",
    tracesEndpoint: "http://127.0.0.1:4318/v1/traces",
    metricsEndpoint: "http://127.0.0.1:4318/v1/metrics",
    protocol: "http/json",
    headers: { authorization: "Bearer x" },
    timeoutMs: 5000,
    serviceName: "wb",
    resourceAttributes: { "deployment.environment": "prod" },
    traces: true,
    metrics: false,
    scheduleDelayMs: 0,
    maxQueueSize: 100,
    maxExportBatchSize: 10,
    exportTimeoutMs: 1000,
    metricIntervalMs: 10_000,
    recordContent: true,
    sampler: "parentbased_traceidratio",
    samplerRatio: 0.25,
  };
  assert.deepEqual(validateConfig(withTelemetry(telemetry)).telemetry, telemetry);
  assert.equal(validateConfig({ toolboxes: {} }).telemetry, undefined);
});

test("telemetry key: wrong values and unknown keys are reported where they are", () => {
  const at = "Invalid configuration at telemetry";
  assert.equal(configErrorOf(() => validateConfig(withTelemetry("http://x"))), `${at}: expected an object`);
  assert.equal(configErrorOf(() => validateConfig(withTelemetry({ protocol: "grpc" }))), `${at}.protocol: expected "http/protobuf" or "http/json"`);
  assert.equal(configErrorOf(() => validateConfig(withTelemetry({ maxQueueSize: 0 }))), `${at}.maxQueueSize: expected a positive integer of spans (at most 1000000)`);
  assert.equal(configErrorOf(() => validateConfig(withTelemetry({ recordContent: "yes" }))), `${at}.recordContent: expected true or false`);
  assert.equal(configErrorOf(() => validateConfig(withTelemetry({ headers: { a: 1 } }))), `${at}.headers: expected an object of string values`);
  assert.match(configErrorOf(() => validateConfig(withTelemetry({ sampler: "ratio" }))), /^Invalid configuration at telemetry\.sampler: expected one of "always_on", /);
  for (const samplerRatio of [1.5, -0.1, "0.5"]) {
    assert.equal(configErrorOf(() => validateConfig(withTelemetry({ samplerRatio }))), `${at}.samplerRatio: expected a number from 0 to 1`);
  }
  assert.match(configErrorOf(() => validateConfig(withTelemetry({ endpont: "http://x" }))), /telemetry: unknown key 'endpont' \(did you mean 'endpoint'\?\)/);
});

test("telemetry key: ${VAR} in endpoints and header values is expanded at load", async () => {
  const file = { toolboxes: {}, telemetry: { endpoint: "http://${OTLP_HOST}:4318", headers: { authorization: "Bearer ${OTLP_TOKEN}" } } };
  const { config } = await loadJson(file, { OTLP_HOST: "collector", OTLP_TOKEN: "t0k" });
  assert.deepEqual(config.telemetry, { endpoint: "http://collector:4318", headers: { authorization: "Bearer t0k" } });
  const { settings } = resolveTelemetry({}, config.telemetry);
  assert.equal(settings.traces?.url, "http://collector:4318/v1/traces");
  assert.deepEqual(settings.traces?.headers, { authorization: "Bearer t0k" });
});

test("telemetry key: an unset variable turns telemetry off, saying why, and the rest of the file loads", async () => {
  const { config } = await loadJson({ toolboxes: { dev: { mcpServers: {} } }, telemetry: { endpoint: "http://c:4318", headers: { a: "${NOT_SET}" } } }, {});
  assert.ok(config.toolboxes.dev);
  assert.match(config.telemetry?.unconfigured ?? "", /NOT_SET is not set \(used at telemetry\.headers\.a\)/);
  const { settings, warnings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://env:1" }, config.telemetry);
  assert.equal(settings.traces ?? settings.metrics, undefined);
  assert.match(warnings[0]!, /^off: .*NOT_SET/);
});

test("telemetry key: an endpoint that is no http(s) URL after expanding fails the file, without its value", async () => {
  await assert.rejects(loadJson({ toolboxes: {}, telemetry: { endpoint: "${HOST}:4317" } }, { HOST: "s3cret-host" }), (error: Error) => {
    assert.match(error.message, /telemetry\.endpoint: expected an http or https URL after expanding environment variables/);
    assert.ok(!error.message.includes("s3cret"));
    return true;
  });
});

test("telemetry key: an endpoint that is one variable, set empty or without its scheme, turns telemetry off, saying why; the file loads", async () => {
  for (const value of ["", "localhost:4318"]) {
    const { config } = await loadJson({ toolboxes: { dev: { mcpServers: {} } }, telemetry: { endpoint: "${OTLP_URL}" } }, { OTLP_URL: value });
    assert.ok(config.toolboxes.dev);
    assert.equal(config.telemetry?.unconfigured, "Invalid configuration at telemetry.endpoint: expected an http or https URL after expanding environment variables");
    const { settings, warnings } = resolveTelemetry({}, config.telemetry);
    assert.equal(settings.traces ?? settings.metrics, undefined);
    assert.match(warnings[0]!, /^off: .*telemetry\.endpoint/);
    assert.ok(!warnings[0]!.includes("localhost"));
  }
});
