/**
 * The trace step alone (issue 50): with telemetry on, a CLIENT span under the client's request's
 * span, its context for the call's `_meta`, the server's failure as its error; off, the call goes
 * on untouched, as the same promise.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { trace } from "../../../src/tools/pipeline/trace.ts";
import { send } from "../../../src/tools/pipeline/call.ts";
import { compose } from "../../../src/tools/pipeline/step.ts";
import { CallError } from "../../../src/downstream/call-lane.ts";
import { NOOP_TELEMETRY, resolveTelemetry, SpanKind, type Telemetry } from "../../../src/telemetry/index.ts";
import { createTelemetry } from "../../../src/telemetry/telemetry.ts";
import type { RecordingSpan } from "../../../src/telemetry/span.ts";
import { resolvedCall, serverOf, stubNext, stubTarget } from "../../helpers/calls.ts";

/** Tracing on, exporting nowhere (the batch waits an hour): only the spans' own state is read. */
function tracing(): Telemetry {
  const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_BSP_SCHEDULE_DELAY: "3600000" });
  return createTelemetry(settings, { fetch: () => Promise.resolve(new Response(null)) });
}

test("trace: a CLIENT span under the request's span, named for the tool, its context in the call's meta", async () => {
  const telemetry = tracing();
  const parent = telemetry.serverSpan({ method: "tools/call", id: 1, params: { name: "use_tool" } }, { transport: "pipe" });
  const { next, got } = stubNext();
  const result = await trace(next)(resolvedCall({ session: { telemetry }, request: { span: parent } }));
  assert.equal(result.ok, true);
  const span = got[0]!.span as RecordingSpan;
  assert.equal(span.kind, SpanKind.CLIENT);
  assert.equal(span.name, "tools/call echo");
  assert.deepEqual(span.parent, parent.context);
  assert.equal(span.context!.traceId, parent.context!.traceId);
  assert.deepEqual(got[0]!.meta, { traceparent: `00-${span.context!.traceId}-${span.context!.spanId}-01` });
  assert.equal(span.attributes["mcp_workbench.toolbox"], "dev");
  assert.equal(span.attributes["mcp_workbench.server"], "s");
  assert.equal(span.attributes["network.transport"], "pipe");
  assert.ok(span.endMs > 0, "ended with the call");
  await telemetry.shutdown(100);
});

test("trace: a remote server's address; the server's JSON-RPC error and a tool error are the span's error.type", async () => {
  const telemetry = tracing();
  const remote = serverOf({ command: undefined, url: "https://tools.example.com:8443/mcp" });
  const failing = stubTarget(remote, () => {
    throw new Error("Invalid params", { cause: new CallError({ kind: "remote", message: "Invalid params", code: -32602 }) });
  });
  const run = compose([trace, () => send]);
  const call = resolvedCall({ session: { telemetry }, target: failing.target });
  assert.equal((await run(call)).ok, false);
  const span = call.span as RecordingSpan;
  assert.equal(span.attributes["network.transport"], "tcp");
  assert.equal(span.attributes["server.address"], "tools.example.com");
  assert.equal(span.attributes["server.port"], 8443);
  assert.equal(span.attributes["error.type"], "-32602");
  assert.equal(failing.sent[0]!.options.meta!.traceparent, `00-${span.context!.traceId}-${span.context!.spanId}-01`);
  const toolError = resolvedCall({ session: { telemetry }, target: stubTarget(serverOf(), () => ({ content: [], isError: true })).target });
  await run(toolError);
  assert.equal((toolError.span as RecordingSpan).attributes["error.type"], "tool_error");
  await telemetry.shutdown(100);
});

test("trace: off (no telemetry, or NOOP_TELEMETRY) the call goes on untouched, as next's own promise", () => {
  for (const telemetry of [undefined, NOOP_TELEMETRY]) {
    const { next, got } = stubNext();
    const call = resolvedCall({ session: { telemetry } });
    const sent = Promise.resolve({ ok: true as const, value: { content: [] } });
    assert.equal(trace(() => sent)(call), sent);
    void trace(next)(call);
    assert.equal(got[0]!.span, undefined);
    assert.equal(got[0]!.meta, undefined);
  }
});

test("trace: with recordContent, the arguments sent and the result are on the span, every configured secret masked; without it, neither", async () => {
  const secret = "sk-live-0123456789abcdef";
  const target = stubTarget(serverOf({ env: { API_KEY: secret } }), () => ({ content: [{ type: "text", text: `key is ${secret}` }] }));
  for (const recordContent of [true, false]) {
    const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_BSP_SCHEDULE_DELAY: "3600000" }, { recordContent });
    const telemetry = createTelemetry(settings, { fetch: () => Promise.resolve(new Response(null)) });
    const call = resolvedCall({ session: { telemetry }, args: { q: `use ${secret}` }, target: target.target });
    assert.equal((await compose([trace, () => send])(call)).ok, true);
    const attributes = (call.span as RecordingSpan).attributes;
    if (recordContent) {
      assert.equal(attributes["gen_ai.tool.call.arguments"], JSON.stringify({ q: "use ***" }));
      assert.match(String(attributes["gen_ai.tool.call.result"]), /key is \*\*\*/);
      assert.doesNotMatch(String(attributes["gen_ai.tool.call.result"]), new RegExp(secret));
    } else {
      assert.equal(attributes["gen_ai.tool.call.arguments"], undefined);
      assert.equal(attributes["gen_ai.tool.call.result"], undefined);
    }
    await telemetry.shutdown(100);
  }
});

test("trace: recordContent masks a secret holding a quote or a backslash (as JSON escapes it), and values under keys named like secrets, as the audit log does", async () => {
  const secret = 'sup"er\\secretvalue';
  const escaped = JSON.stringify(secret).slice(1, -1);
  const target = stubTarget(serverOf({ env: { API_KEY: secret } }), () => ({ content: [{ type: "text", text: `key is ${secret}` }] }));
  const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_BSP_SCHEDULE_DELAY: "3600000" }, { recordContent: true });
  const telemetry = createTelemetry(settings, { fetch: () => Promise.resolve(new Response(null)) });
  const args = { s: `key is ${secret}`, password: "hunter2hunter2", nested: { api_token: "tok-abcdef" }, n: 1 };
  const call = resolvedCall({ session: { telemetry }, args, target: target.target });
  assert.equal((await compose([trace, () => send])(call)).ok, true);
  const attributes = (call.span as RecordingSpan).attributes;
  assert.equal(attributes["gen_ai.tool.call.arguments"], JSON.stringify({ s: "key is ***", password: "***", nested: { api_token: "***" }, n: 1 }));
  const result = String(attributes["gen_ai.tool.call.result"]);
  assert.ok(!result.includes(escaped) && result.includes("key is ***"), result);
  await telemetry.shutdown(100);
});
