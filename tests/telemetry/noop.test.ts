/**
 * Telemetry off costs nothing: without an endpoint (or with OTEL_SDK_DISABLED) the workbench gets
 * NOOP_TELEMETRY, every span is the one frozen NOOP_SPAN, the request is never read, and `_meta`
 * is left as it came.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { injectMeta, NOOP_SPAN, NOOP_TELEMETRY, resolveTelemetry } from "../../src/telemetry/index.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";

/** A request whose every property throws when read. */
const untouchable = new Proxy({}, {
  get: () => {
    throw new Error("Read while telemetry is off");
  },
}) as { method: string };

test("noop: no endpoint, or OTEL_SDK_DISABLED, gives the one NOOP_TELEMETRY", () => {
  assert.equal(createTelemetry(resolveTelemetry({}).settings), NOOP_TELEMETRY);
  const disabled = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" });
  assert.equal(createTelemetry(disabled.settings), NOOP_TELEMETRY);
  assert.equal(NOOP_TELEMETRY.tracing || NOOP_TELEMETRY.metering || NOOP_TELEMETRY.recordContent, false);
});

test("noop: every span is the same frozen NOOP_SPAN, and the request and peer are never read", () => {
  const telemetry = createTelemetry(resolveTelemetry({}).settings);
  const server = telemetry.serverSpan(untouchable, untouchable as never);
  const client = telemetry.clientSpan(untouchable, server, untouchable as never);
  const step = telemetry.internalSpan("approve", client);
  assert.equal(server, NOOP_SPAN);
  assert.equal(client, NOOP_SPAN);
  assert.equal(step, NOOP_SPAN);
  assert.ok(Object.isFrozen(NOOP_SPAN));
  assert.equal(server.setAttribute("a", 1).addEvent("e").setStatus(2, "m").setContent("arguments", untouchable), NOOP_SPAN);
  server.end(untouchable);
  server.fail(untouchable);
  assert.equal(server.context, undefined);
  assert.deepEqual(telemetry.stats(), {});
});

test("noop: injectMeta gives back the very params, _meta untouched", () => {
  const params = { name: "echo", _meta: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" } };
  assert.equal(injectMeta(params, NOOP_SPAN), params);
  assert.equal(injectMeta(undefined, NOOP_SPAN), undefined);
});

test("noop: flush and shutdown resolve at once", async () => {
  assert.equal(await NOOP_TELEMETRY.flush(0), true);
  await NOOP_TELEMETRY.shutdown(0);
});
