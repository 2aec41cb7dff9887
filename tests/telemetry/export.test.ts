/**
 * Spans and histograms exported over OTLP/HTTP to a receiver that decodes them, in protobuf and in
 * JSON: one trace from a client's `_meta` through the workbench's SERVER span to a CLIENT span and
 * an INTERNAL step, with the conventions' attributes, events, links and status.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { injectMeta, type OtlpProtocol, resolveTelemetry } from "../../src/telemetry/index.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";
import { postOtlp, scrubbed } from "../../src/telemetry/exporter.ts";
import { createServer, type Server } from "node:http";
import { type OtlpReceiver, startOtlpReceiver } from "../helpers/otlp-receiver.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const HTTP_SPAN = "1111111111111111";

const receivers: OtlpReceiver[] = [];
after(() => Promise.all(receivers.map((receiver) => receiver.close())));

async function receiverAnd(protocol: OtlpProtocol, env: Record<string, string> = {}) {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const { settings, warnings } = resolveTelemetry({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0ken,x-tenant=acme",
    OTEL_SERVICE_NAME: "wb-test",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
    ...env,
  });
  assert.deepEqual(warnings, []);
  const problems: string[] = [];
  const telemetry = createTelemetry(settings, { onProblem: (message) => problems.push(message), resource: { "process.runtime.name": "test" } });
  return { receiver, telemetry, problems };
}

/** One client request through the workbench: use_tool in, echo out (a tool error), an approval step. */
function oneCall(telemetry: ReturnType<typeof createTelemetry>) {
  const request = {
    method: "tools/call",
    id: 7,
    params: { name: "use_tool", arguments: { secret: "never-recorded" }, _meta: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01`, tracestate: "rojo=1", baggage: "user=alice" } },
  };
  const server = telemetry.serverSpan(request, { transport: "tcp", protocolVersion: "2025-11-25", sessionId: "s-1" }, {
    httpHeaders: new Headers({ traceparent: `00-${"2".repeat(32)}-${HTTP_SPAN}-01` }),
  });
  const approval = telemetry.internalSpan("approve", server, { "mcp_workbench.toolbox": "dev" });
  approval.addEvent("asked", { "mcp_workbench.tool": "echo" });
  approval.end();
  const call = { name: "echo", arguments: { message: "hi" } };
  const client = telemetry.clientSpan({ method: "tools/call", id: 3, params: call }, server, {
    transport: "pipe",
    protocolVersion: "2026-07-28",
    toolbox: "dev",
    server: "everything",
    serverAddress: "127.0.0.1",
    serverPort: 3000,
  });
  const sent = injectMeta(call, client);
  client.end({ content: [{ type: "text", text: "boom" }], isError: true });
  server.fail(Object.assign(new Error("MCP error -32602: Invalid params"), { code: -32602 }));
  return { server, approval, client, sent };
}

for (const protocol of ["http/protobuf", "http/json"] as const) {
  test(`export (${protocol}): one trace from the client's _meta to the server's CLIENT span, as the conventions name it`, async () => {
    const { receiver, telemetry, problems } = await receiverAnd(protocol);
    const { server, client, sent } = oneCall(telemetry);
    assert.equal(await telemetry.flush(5000), true);
    await telemetry.shutdown(1000);
    assert.deepEqual(receiver.problems, []);
    assert.deepEqual(problems, []);
    const byName = new Map(receiver.spans.map((span) => [span.name, span]));
    assert.deepEqual([...byName.keys()].sort(), ["approve", "tools/call echo", "tools/call use_tool"]);
    const [inbound, outbound, step] = [byName.get("tools/call use_tool")!, byName.get("tools/call echo")!, byName.get("approve")!];
    // One trace: the client's span is the SERVER span's parent; ours are the children.
    for (const span of [inbound, outbound, step]) assert.equal(span.traceId, TRACE);
    assert.equal(inbound.parentSpanId, CLIENT_SPAN);
    assert.equal(inbound.spanId, server.context!.spanId);
    assert.equal(outbound.parentSpanId, inbound.spanId);
    assert.equal(step.parentSpanId, inbound.spanId);
    assert.equal(sent._meta?.traceparent, `00-${TRACE}-${client.context!.spanId}-01`);
    assert.equal(sent._meta?.baggage, "user=alice");
    assert.deepEqual([inbound.kind, outbound.kind, step.kind], [2, 3, 1]);
    assert.equal(inbound.traceState, "rojo=1");
    // flags: sampled, and whether the parent is remote (0x100 says it is known, 0x200 that it is).
    assert.deepEqual([inbound.flags, outbound.flags], [0x301, 0x101]);
    assert.deepEqual(inbound.links.map((link) => [link.traceId, link.spanId]), [["2".repeat(32), HTTP_SPAN]]);
    assert.deepEqual(inbound.attributes, {
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "use_tool",
      "gen_ai.operation.name": "execute_tool",
      "jsonrpc.request.id": "7",
      "network.transport": "tcp",
      "mcp.protocol.version": "2025-11-25",
      "mcp.session.id": "s-1",
      "error.type": "-32602",
      "rpc.response.status_code": "-32602",
    });
    // Never the error's text: the workbench's can hold a path, an argument, a server's stderr.
    assert.deepEqual(inbound.status, { code: 2 });
    assert.deepEqual(outbound.attributes, {
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "jsonrpc.request.id": "3",
      "network.transport": "pipe",
      "mcp.protocol.version": "2026-07-28",
      "server.address": "127.0.0.1",
      "server.port": 3000,
      "mcp_workbench.toolbox": "dev",
      "mcp_workbench.server": "everything",
      "error.type": "tool_error",
    });
    assert.deepEqual(outbound.status, { code: 2 });
    assert.deepEqual(step.events.map((event) => [event.name, event.attributes]), [["asked", { "mcp_workbench.tool": "echo" }]]);
    assert.ok(step.events[0]!.timeUnixNano >= step.startTimeUnixNano && step.events[0]!.timeUnixNano <= step.endTimeUnixNano);
    for (const span of receiver.spans) {
      assert.ok(span.endTimeUnixNano > span.startTimeUnixNano, span.name);
      // Nanoseconds since the epoch: within a minute of now.
      assert.ok(Math.abs(Number(span.startTimeUnixNano / 1_000_000n) - Date.now()) < 60_000, span.name);
      assert.deepEqual(span.resource, {
        "process.runtime.name": "test",
        "deployment.environment": "test",
        "service.name": "wb-test",
        "service.version": span.resource["service.version"]!,
        "telemetry.sdk.name": "mcp-workbench",
        "telemetry.sdk.version": span.resource["service.version"]!,
      });
      assert.equal(span.scope.name, "mcp-workbench");
    }
    assert.ok(!JSON.stringify(receiver.spans, (_, value) => typeof value === "bigint" ? String(value) : value).includes("never-recorded"));
  });

  test(`export (${protocol}): the variables' headers and content type reach the collector, at /v1/traces and /v1/metrics`, async () => {
    const { receiver, telemetry } = await receiverAnd(protocol);
    oneCall(telemetry);
    await telemetry.shutdown(5000);
    assert.deepEqual(receiver.requests.map((request) => request.path).sort(), ["/v1/metrics", "/v1/traces"]);
    for (const request of receiver.requests) {
      assert.equal(request.contentType, protocol === "http/json" ? "application/json" : "application/x-protobuf");
      assert.equal(request.headers.authorization, "Bearer t0ken");
      assert.equal(request.headers["x-tenant"], "acme");
    }
  });

  test(`export (${protocol}): the duration histograms of both sides, in the conventions' buckets and attributes`, async () => {
    const { receiver, telemetry } = await receiverAnd(protocol);
    oneCall(telemetry);
    oneCall(telemetry);
    await telemetry.shutdown(5000);
    assert.deepEqual(receiver.problems, []);
    const byName = new Map(receiver.histograms.map((histogram) => [histogram.name, histogram]));
    assert.deepEqual([...byName.keys()].sort(), ["mcp.client.operation.duration", "mcp.server.operation.duration"]);
    const server = byName.get("mcp.server.operation.duration")!;
    const client = byName.get("mcp.client.operation.duration")!;
    for (const histogram of [server, client]) {
      assert.equal(histogram.unit, "s");
      assert.equal(histogram.temporality, 2, "cumulative");
      assert.equal(histogram.points.length, 1);
      const [point] = histogram.points;
      assert.equal(point!.count, 2);
      assert.deepEqual(point!.explicitBounds, [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
      assert.equal(point!.bucketCounts.length, 15);
      assert.equal(point!.bucketCounts.reduce((sum, count) => sum + count, 0), 2);
      assert.ok(point!.min! <= point!.max! && point!.sum! >= point!.min! * 2 - 1e-12);
    }
    // No ids or session in a metric's attributes: they would grow the series with the traffic.
    assert.deepEqual(server.points[0]!.attributes, {
      "mcp.method.name": "tools/call",
      "error.type": "-32602",
      "gen_ai.tool.name": "use_tool",
      "rpc.response.status_code": "-32602",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": "2025-11-25",
      "network.transport": "tcp",
    });
    assert.equal(client.points[0]!.attributes["mcp_workbench.server"], "everything");
    assert.equal(client.points[0]!.attributes["error.type"], "tool_error");
  });
}

test("export: a client's unsampled trace is followed (nothing exported, flag 00 passed on), and still measured", async () => {
  const { receiver, telemetry } = await receiverAnd("http/protobuf");
  const server = telemetry.serverSpan({ method: "tools/call", id: 1, params: { name: "x", _meta: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-00` } } }, { transport: "pipe" });
  const client = telemetry.clientSpan({ method: "tools/call", id: 1, params: { name: "y" } }, server, { transport: "pipe" });
  assert.equal(injectMeta({}, client)._meta?.traceparent, `00-${TRACE}-${client.context!.spanId}-00`);
  client.end();
  server.end();
  await telemetry.shutdown(5000);
  assert.deepEqual(receiver.spans, []);
  assert.equal(receiver.histograms.length, 2);
});

test("export: OTEL_TRACES_SAMPLER=always_off: nothing exported, the flag 00 passed on, every request still measured", async () => {
  const { receiver, telemetry } = await receiverAnd("http/protobuf", { OTEL_TRACES_SAMPLER: "always_off" });
  const server = telemetry.serverSpan({ method: "tools/call", id: 1, params: { name: "x", _meta: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` } } }, { transport: "pipe" });
  const step = telemetry.internalSpan("approve", server);
  const client = telemetry.clientSpan({ method: "tools/call", id: 1, params: { name: "y" } }, server, { transport: "pipe" });
  assert.equal(injectMeta({}, client)._meta?.traceparent, `00-${TRACE}-${client.context!.spanId}-00`);
  for (const span of [step, client, server]) span.end();
  await telemetry.shutdown(5000);
  assert.deepEqual(receiver.spans, []);
  assert.equal(receiver.histograms.length, 2);
});

test("export: a ratio sampler keeps whole traces: a kept trace's spans all go, a dropped one's none", async () => {
  const { receiver, telemetry } = await receiverAnd("http/json", { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" });
  const traces: string[] = [];
  for (let index = 0; index < 200; index++) {
    const server = telemetry.serverSpan({ method: "tools/call", id: index, params: { name: "x" } }, { transport: "pipe" });
    const client = telemetry.clientSpan({ method: "tools/call", id: index, params: { name: "y" } }, server, { transport: "pipe" });
    traces.push(server.context!.traceId);
    client.end();
    server.end();
  }
  await telemetry.shutdown(5000);
  const kept = new Set(receiver.spans.map((span) => span.traceId));
  // 200 traces at one half: between 60 and 140 kept but once in about 10^8 runs.
  assert.ok(kept.size > 60 && kept.size < 140, `${kept.size} of 200 traces kept`);
  assert.equal(receiver.spans.length, 2 * kept.size);
  assert.deepEqual([...kept].sort(), traces.filter((id) => kept.has(id)).sort());
});

test("export: with traces off and metrics on, spans have no context (nothing propagated) and durations are measured", async () => {
  const { receiver, telemetry } = await receiverAnd("http/json", { OTEL_TRACES_EXPORTER: "none" });
  assert.equal(telemetry.tracing, false);
  assert.equal(telemetry.metering, true);
  const server = telemetry.serverSpan({ method: "prompts/get", id: 1, params: { name: "greet" } }, { transport: "pipe" });
  assert.equal(server.context, undefined);
  assert.equal(telemetry.internalSpan("approve", server).recording, false);
  server.end();
  await telemetry.shutdown(5000);
  assert.deepEqual(receiver.requests.map((request) => request.path), ["/v1/metrics"]);
  // The server side's series never take a prompt's name: a client may make one up for each request.
  assert.equal(receiver.histograms[0]!.points[0]!.attributes["mcp.method.name"], "prompts/get");
  assert.equal(receiver.histograms[0]!.points[0]!.attributes["gen_ai.prompt.name"], undefined);
});

test("export: a runtime's message about a failed request reaches the log on one line, without the headers' names or values", () => {
  const headers = { authorization: "Bearer TOPSECRET", "x-api-key": "APIKEYSECRET" };
  const message = 'Invalid header value: "Bearer TOPSECRET\r\nX: 1" for x-api-key APIKEYSECRET';
  assert.equal(scrubbed(message, headers), 'Invalid header value: "*** X: 1" for *** ***');
  assert.equal(scrubbed("Unable to connect", {}), "Unable to connect");
});

test("export: a collector's redirect is not followed, so its headers never reach another address; the log says what to do", async () => {
  const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
  const reached: string[] = [];
  const other = createServer((request, response) => {
    reached.push(String(request.headers["x-api-key"]));
    response.end();
  });
  const otherPort = await listen(other);
  const collector = createServer((_request, response) => {
    response.writeHead(307, { location: `http://localhost:${otherPort}/v1/traces` });
    response.end();
  });
  const port = await listen(collector);
  try {
    const target = { url: `http://127.0.0.1:${port}/v1/traces`, headers: { "x-api-key": "APIKEYSECRET" }, protocol: "http/json" as const, timeoutMs: 5000 };
    const outcome = await postOtlp(target, "{}", 5000);
    assert.deepEqual(outcome, { ok: false, reason: "HTTP 307, a redirect, not followed: set the endpoint to the address it names" });
    assert.deepEqual(reached, []);
  } finally {
    await new Promise((resolve) => collector.close(resolve));
    await new Promise((resolve) => other.close(resolve));
  }
});
