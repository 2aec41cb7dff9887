/** Telemetry's settings from the standard variables and the file's "telemetry" object: endpoints, headers, protocol, batches, resource, switches. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveTelemetry } from "../../src/telemetry/settings.ts";
import { parseKeyValueList } from "../../src/telemetry/key-value-list.ts";

test("settings: off without an endpoint", () => {
  const { settings, warnings } = resolveTelemetry({});
  assert.equal(settings.traces, undefined);
  assert.equal(settings.metrics, undefined);
  assert.deepEqual(warnings, []);
});

test("settings: the base endpoint gets v1/traces and v1/metrics, with or without its slash", () => {
  for (const base of ["http://collector:4318", "http://collector:4318/"]) {
    const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: base });
    assert.equal(settings.traces?.url, "http://collector:4318/v1/traces");
    assert.equal(settings.metrics?.url, "http://collector:4318/v1/metrics");
  }
  const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://gw.example.com/otlp" });
  assert.equal(settings.traces?.url, "https://gw.example.com/otlp/v1/traces");
});

test("settings: a signal's own endpoint is used as it is, and only that signal is on", () => {
  const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom/path" });
  assert.equal(settings.traces?.url, "http://c:4318/custom/path");
  assert.equal(settings.metrics, undefined);
  const both = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:1", OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://m:2/x" }).settings;
  assert.equal(both.traces?.url, "http://base:1/v1/traces");
  assert.equal(both.metrics?.url, "http://m:2/x");
});

test("settings: defaults: http/protobuf, 10 s, the standard's batch sizes, 60 s metrics, mcp-workbench, no content", () => {
  const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" });
  assert.equal(settings.traces?.protocol, "http/protobuf");
  assert.equal(settings.traces?.timeoutMs, 10_000);
  assert.deepEqual(settings.traces?.headers, {});
  assert.deepEqual(settings.batch, { scheduleDelayMs: 5000, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMs: 30_000 });
  assert.equal(settings.metricIntervalMs, 60_000);
  assert.equal(settings.resource["service.name"], "mcp-workbench");
  assert.equal(settings.recordContent, false);
});

test("settings: every variable read: protocol, headers, timeout, batches, interval, limits, service, resource", () => {
  const { settings, warnings } = resolveTelemetry({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf",
    OTEL_EXPORTER_OTLP_HEADERS: "api-key=abc%20def, x-b = 2",
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-b=3",
    OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
    OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: "700",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_BSP_MAX_QUEUE_SIZE: "50",
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "10",
    OTEL_BSP_EXPORT_TIMEOUT: "900",
    OTEL_METRIC_EXPORT_INTERVAL: "1000",
    OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "64",
    OTEL_SERVICE_NAME: "gateway",
    OTEL_RESOURCE_ATTRIBUTES: "service.name=ignored,deployment.environment=prod,team=a%2Cb",
  });
  assert.deepEqual(warnings, []);
  assert.equal(settings.traces?.protocol, "http/json");
  assert.equal(settings.metrics?.protocol, "http/protobuf");
  assert.deepEqual(settings.traces?.headers, { "api-key": "abc def", "x-b": "3" });
  assert.deepEqual(settings.metrics?.headers, { "api-key": "abc def", "x-b": "2" });
  assert.equal(settings.traces?.timeoutMs, 2500);
  assert.equal(settings.metrics?.timeoutMs, 700);
  assert.deepEqual(settings.batch, { scheduleDelayMs: 100, maxQueueSize: 50, maxExportBatchSize: 10, exportTimeoutMs: 900 });
  assert.equal(settings.metricIntervalMs, 1000);
  assert.equal(settings.limits.attributeValueLength, 64);
  assert.equal(settings.resource["service.name"], "gateway");
  assert.equal(settings.resource["deployment.environment"], "prod");
  assert.equal(settings.resource.team, "a,b");
});

test("settings: the file's keys stand over the variables", () => {
  const { settings } = resolveTelemetry(
    { OTEL_EXPORTER_OTLP_ENDPOINT: "http://env:1", OTEL_EXPORTER_OTLP_HEADERS: "a=1", OTEL_SERVICE_NAME: "env", OTEL_BSP_MAX_QUEUE_SIZE: "9" },
    {
      endpoint: "http://file:2",
      headers: { authorization: "Bearer x" },
      serviceName: "file",
      resourceAttributes: { region: "eu" },
      protocol: "http/json",
      timeoutMs: 1234,
      maxQueueSize: 100,
      maxExportBatchSize: 20,
      scheduleDelayMs: 10,
      exportTimeoutMs: 50,
      metricIntervalMs: 500,
      recordContent: true,
    },
  );
  assert.equal(settings.traces?.url, "http://file:2/v1/traces");
  assert.deepEqual(settings.traces?.headers, { authorization: "Bearer x" });
  assert.equal(settings.traces?.protocol, "http/json");
  assert.equal(settings.traces?.timeoutMs, 1234);
  assert.equal(settings.resource["service.name"], "file");
  assert.equal(settings.resource.region, "eu");
  assert.deepEqual(settings.batch, { scheduleDelayMs: 10, maxQueueSize: 100, maxExportBatchSize: 20, exportTimeoutMs: 50 });
  assert.equal(settings.metricIntervalMs, 500);
  assert.equal(settings.recordContent, true);
  const own = resolveTelemetry({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://env-traces:1/t" }, { endpoint: "http://file:2" }).settings;
  assert.equal(own.traces?.url, "http://file:2/v1/traces", "any endpoint of the file stands over the variables");
  assert.equal(resolveTelemetry({}, { tracesEndpoint: "http://t:1/x" }).settings.traces?.url, "http://t:1/x");
});

test("settings: switches: OTEL_SDK_DISABLED turns all off; OTEL_*_EXPORTER=none or the file's false turns one off", () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:1" };
  const disabled = resolveTelemetry({ ...base, OTEL_SDK_DISABLED: "TRUE" }, { endpoint: "http://file:2" }).settings;
  assert.equal(disabled.traces ?? disabled.metrics, undefined);
  assert.deepEqual(resolveTelemetry({ ...base, OTEL_SDK_DISABLED: "false" }).warnings, []);
  // Anything but true is false (the standard), and a value that is neither is named: "yes" keeps telemetry on.
  const yes = resolveTelemetry({ ...base, OTEL_SDK_DISABLED: "yes" });
  assert.ok(yes.settings.traces && yes.settings.metrics);
  assert.deepEqual(yes.warnings, ["OTEL_SDK_DISABLED 'yes' is not 'true' or 'false': telemetry stays on"]);
  const noTraces = resolveTelemetry({ ...base, OTEL_TRACES_EXPORTER: "none" }).settings;
  assert.equal(noTraces.traces, undefined);
  assert.ok(noTraces.metrics);
  const noMetrics = resolveTelemetry({ ...base, OTEL_METRICS_EXPORTER: "None" }).settings;
  assert.ok(noMetrics.traces && !noMetrics.metrics);
  const fileOff = resolveTelemetry(base, { metrics: false }).settings;
  assert.ok(fileOff.traces && !fileOff.metrics);
  assert.ok(resolveTelemetry({ ...base, OTEL_TRACES_EXPORTER: "none" }, { traces: true }).settings.traces, "the file's true stands over none");
});

test("settings: bad values are reported by name and replaced by their defaults; secrets in them are not repeated", () => {
  const { settings, warnings } = resolveTelemetry({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:1",
    OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    OTEL_BSP_MAX_QUEUE_SIZE: "lots",
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "5000",
    OTEL_EXPORTER_OTLP_TIMEOUT: "-1",
    OTEL_EXPORTER_OTLP_HEADERS: "s3cret-token-value,ok=1",
    OTEL_TRACES_EXPORTER: "console",
  });
  assert.equal(settings.traces?.protocol, "http/protobuf");
  assert.equal(settings.batch.maxQueueSize, 2048);
  assert.equal(settings.batch.maxExportBatchSize, 2048);
  assert.equal(settings.traces?.timeoutMs, 10_000);
  assert.deepEqual(settings.traces?.headers, { ok: "1" });
  assert.ok(settings.traces, "an unknown exporter name keeps OTLP");
  const text = warnings.join("\n");
  for (const name of ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_BSP_MAX_QUEUE_SIZE", "export batch size", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_TRACES_EXPORTER"]) {
    assert.ok(text.includes(name), `${name} in ${text}`);
  }
  assert.ok(!text.includes("s3cret"), text);
});

test("settings: a value quoted in a warning stays on its line", () => {
  const { warnings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:1", OTEL_TRACES_SAMPLER: "x\nmcp-workbench: forged" });
  assert.equal(warnings.length, 1);
  assert.ok(!warnings[0]!.includes("\n") && warnings[0]!.includes("x?mcp-workbench: forged"), warnings[0]);
});

test("settings: a queue or batch of spans is at most a million, from the variables as from the file", () => {
  const { settings, warnings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:1", OTEL_BSP_MAX_QUEUE_SIZE: "2000000000" });
  assert.equal(settings.batch.maxQueueSize, 2048);
  assert.deepEqual(warnings, ["OTEL_BSP_MAX_QUEUE_SIZE '2000000000' is not an integer from 1 to 1000000: 2048 is used"]);
  assert.equal(resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:1", OTEL_BSP_MAX_QUEUE_SIZE: "1000000" }).settings.batch.maxQueueSize, 1_000_000);
});

test("settings: a header HTTP cannot carry is left out and counted, never shown, from the variables and the file; a warning is said once", () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:1" };
  const typed = resolveTelemetry({ ...base, OTEL_EXPORTER_OTLP_HEADERS: "Authorization: Basic dXNlcjpTM2NyM3Q=,x-ok=1,authorization=Bearer%20TOPSECRET%0D%0AX:%201" });
  assert.deepEqual(typed.settings.traces?.headers, { "x-ok": "1" });
  assert.deepEqual(typed.settings.metrics?.headers, { "x-ok": "1" });
  assert.deepEqual(typed.warnings, [
    "OTEL_EXPORTER_OTLP_HEADERS has 2 headers HTTP cannot carry (a name with a space or a colon, a line break in a value): left out",
  ]);
  const file = resolveTelemetry(base, { headers: { "bad key": "v", ok: "tab\tis fine", nl: "a\nb" } });
  assert.deepEqual(file.settings.traces?.headers, { ok: "tab\tis fine" });
  assert.equal(file.warnings.length, 1);
  assert.match(file.warnings[0]!, /^telemetry\.headers has 2 headers HTTP cannot carry/);
  for (const warning of [...typed.warnings, ...file.warnings]) assert.ok(!/TOPSECRET|dXNlcjpTM2NyM3Q|bad key/.test(warning), warning);
});

test("settings: an endpoint that is no http(s) URL turns its signal off, saying so", () => {
  const { settings, warnings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4317" });
  assert.equal(settings.traces ?? settings.metrics, undefined);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /OTEL_EXPORTER_OTLP_ENDPOINT is not an http or https URL/);
});

test("key=value lists: trimmed, percent-decoded, bad entries counted; a bad escape is kept as written", () => {
  const warnings: string[] = [];
  assert.deepEqual(parseKeyValueList(" a = 1 ,b=x%3Dy, ,=nokey,c=%E0%A4%A", "V", warnings), { a: "1", b: "x=y", c: "%E0%A4%A" });
  assert.deepEqual(warnings, ["V has 1 entry not of the form key=value: left out"]);
  assert.deepEqual(parseKeyValueList(undefined, "V", warnings), {});
});

test("settings: OTEL_TRACES_SAMPLER and its argument, the file's sampler over them, bad ones named and defaulted", () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
  const sampler = (env: Record<string, string>, file = {}) => resolveTelemetry({ ...base, ...env }, file);
  assert.deepEqual(sampler({}).settings.sampler, { parentBased: true, ratio: 1 });
  assert.deepEqual(sampler({ OTEL_TRACES_SAMPLER: "always_off" }).settings.sampler, { parentBased: false, ratio: 0 });
  assert.deepEqual(sampler({ OTEL_TRACES_SAMPLER: " ParentBased_Always_Off " }).settings.sampler, { parentBased: true, ratio: 0 });
  assert.deepEqual(sampler({ OTEL_TRACES_SAMPLER: "traceidratio" }).settings.sampler, { parentBased: false, ratio: 1 });
  const ratio = sampler({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" });
  assert.deepEqual([ratio.settings.sampler, ratio.warnings], [{ parentBased: true, ratio: 0.25 }, []]);
  // The argument is read only by a ratio sampler.
  assert.deepEqual(sampler({ OTEL_TRACES_SAMPLER: "always_on", OTEL_TRACES_SAMPLER_ARG: "0.1" }).settings.sampler, { parentBased: false, ratio: 1 });
  const file = sampler({ OTEL_TRACES_SAMPLER: "always_off", OTEL_TRACES_SAMPLER_ARG: "0.9" }, { sampler: "traceidratio", samplerRatio: 0.5 });
  assert.deepEqual(file.settings.sampler, { parentBased: false, ratio: 0.5 });
  // A sampler and its ratio come from one place: the variable's argument never serves the file's sampler.
  const fileSampler = sampler({ OTEL_TRACES_SAMPLER: "always_off", OTEL_TRACES_SAMPLER_ARG: "0.01" }, { sampler: "traceidratio" });
  assert.deepEqual([fileSampler.settings.sampler, fileSampler.warnings], [
    { parentBased: false, ratio: 1 },
    [`OTEL_TRACES_SAMPLER_ARG '0.01' is ignored: the file's "sampler" stands over the variables`],
  ]);
  // An argument no sampler reads is named: a user who asked for a share would otherwise get all.
  for (const env of [{ OTEL_TRACES_SAMPLER_ARG: "0.5" }, { OTEL_TRACES_SAMPLER: "always_on", OTEL_TRACES_SAMPLER_ARG: "0.5" }] as Record<string, string>[]) {
    const { settings, warnings } = sampler(env);
    assert.equal(settings.sampler.ratio, 1);
    assert.deepEqual(warnings, [
      "OTEL_TRACES_SAMPLER_ARG '0.5' is read only beside an OTEL_TRACES_SAMPLER of 'traceidratio' or 'parentbased_traceidratio': ignored",
    ], JSON.stringify(env));
  }
  // A file's ratio that no file sampler reads is named, not silently dropped (nor given to the variable's sampler).
  const ignoredRatio = `telemetry.samplerRatio 0.1 is read only beside a "sampler" of "traceidratio" or "parentbased_traceidratio" ` +
    `in the file: ignored`;
  for (const [env, file, expected] of [
    [{}, { samplerRatio: 0.1 }, { parentBased: true, ratio: 1 }],
    [{}, { sampler: "always_on", samplerRatio: 0.1 }, { parentBased: false, ratio: 1 }],
    [{ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" }, { samplerRatio: 0.1 }, { parentBased: false, ratio: 0.5 }],
  ] as const) {
    const { settings, warnings } = sampler(env, file);
    assert.deepEqual([settings.sampler, warnings], [expected, [ignoredRatio]], JSON.stringify(file));
  }
  const unknown = sampler({ OTEL_TRACES_SAMPLER: "jaeger_remote" });
  assert.deepEqual(unknown.settings.sampler, { parentBased: true, ratio: 1 });
  assert.match(unknown.warnings[0]!, /^OTEL_TRACES_SAMPLER 'jaeger_remote' is not supported .*: parentbased_always_on is used$/);
  for (const bad of ["1.5", "-0.1", "half", "0x1", "NaN"]) {
    const { settings, warnings } = sampler({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: bad });
    assert.equal(settings.sampler.ratio, 1, bad);
    assert.deepEqual(warnings, [`OTEL_TRACES_SAMPLER_ARG '${bad}' is not a ratio from 0 to 1: 1 is used`]);
  }
});
