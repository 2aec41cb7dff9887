/** The conventions' names: span names, what a request and its session put on a span, and what a histogram keeps. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Histogram } from "../../src/telemetry/metrics.ts";
import {
  keptRequest,
  METRIC_ATTRIBUTES,
  serverOfUrl,
  setPeerAttributes,
  setRequestAttributes,
  shownUri,
  spanName,
  targetOf,
} from "../../src/telemetry/mcp-conventions.ts";
import { NOOP_SPAN, RecordingSpan, SpanKind } from "../../src/telemetry/span.ts";

function attributesOf(fill: (span: RecordingSpan) => void) {
  const limits = { attributeCount: 128, attributeValueLength: 4096, eventCount: 128, linkCount: 128 };
  const span = new RecordingSpan({ limits, recordContent: false, ended: () => {}, child: () => NOOP_SPAN }, "x", SpanKind.CLIENT, undefined, undefined, undefined);
  fill(span);
  return { ...span.attributes };
}

test("span name: `{mcp.method.name} {target}`, the target a tool's or prompt's name, never a resource URI", () => {
  assert.equal(spanName("tools/call", targetOf({ method: "tools/call", params: { name: "get-weather" } })), "tools/call get-weather");
  assert.equal(spanName("prompts/get", targetOf({ method: "prompts/get", params: { name: "review" } })), "prompts/get review");
  assert.equal(spanName("resources/read", targetOf({ method: "resources/read", params: { uri: "file:///a" } })), "resources/read");
  const completion = { method: "completion/complete", params: { ref: { type: "ref/prompt", name: "review" } } };
  assert.equal(spanName("completion/complete", targetOf(completion)), "completion/complete review");
  const templateCompletion = { method: "completion/complete", params: { ref: { type: "ref/resource", uri: "file:///{x}" } } };
  assert.equal(targetOf(templateCompletion), undefined);
  assert.equal(spanName("initialize", targetOf({ method: "initialize", params: {} })), "initialize");
  assert.equal(targetOf({ method: "tools/call", params: { name: 5 } }), undefined);
  assert.equal(targetOf({ method: "tools/call" }), undefined);
});

test("request attributes: a tool call", () => {
  assert.deepEqual(attributesOf((span) => setRequestAttributes(span, { method: "tools/call", id: "r-7", params: { name: "echo", arguments: { a: 1 } } })), {
    "mcp.method.name": "tools/call",
    "gen_ai.tool.name": "echo",
    "gen_ai.operation.name": "execute_tool",
    "jsonrpc.request.id": "r-7",
  });
});

test("request attributes: a prompt, a resource; no request id for a notification or a null id", () => {
  assert.deepEqual(attributesOf((span) => setRequestAttributes(span, { method: "prompts/get", id: 0, params: { name: "p" } })), {
    "mcp.method.name": "prompts/get",
    "gen_ai.prompt.name": "p",
    "jsonrpc.request.id": "0",
  });
  assert.deepEqual(attributesOf((span) => setRequestAttributes(span, { method: "resources/read", id: null, params: { uri: "file:///x" } })), {
    "mcp.method.name": "resources/read",
    "mcp.resource.uri": "file:///x",
  });
  assert.deepEqual(attributesOf((span) => setRequestAttributes(span, { method: "notifications/resources/updated", params: { uri: "u:1" } })), {
    "mcp.method.name": "notifications/resources/updated",
    "mcp.resource.uri": "u:1",
  });
});

test("kept request: only what a span reads, each cut, so a span waiting for export holds none of a client's arguments, padding or _meta", () => {
  const pad = "x".repeat(100_000);
  const call = { method: "tools/call", id: pad, params: { name: "echo", arguments: { pad }, _meta: { traceparent: "t", pad }, pad } };
  const kept = keptRequest(call);
  assert.deepEqual(kept, { method: "tools/call", id: "x".repeat(8192), params: { name: "echo" } });
  assert.ok(JSON.stringify(keptRequest({ method: "ping", id: 1, params: { pad } })).length < 100);
  assert.deepEqual(keptRequest({ method: "resources/read", id: 2, params: { uri: `file:///${pad}` } }).params, { uri: `file:///${pad}`.slice(0, 8192) });
  const completion = keptRequest({ method: "completion/complete", params: { ref: { type: "ref/prompt", name: "review", pad }, argument: { pad } } });
  assert.deepEqual(completion, { method: "completion/complete", id: undefined, params: { ref: { type: "ref/prompt", name: "review" } } });
  // The attributes are the ones the whole request gives.
  for (const request of [call, { method: "prompts/get", id: 3, params: { name: "p", arguments: { pad } } }]) {
    const whole = attributesOf((span) => setRequestAttributes(span, request));
    assert.deepEqual(attributesOf((span) => setRequestAttributes(span, keptRequest(request))), whole);
  }
});

test("shown URI: no user or password, query values and fragment masked, even where the URI does not parse", () => {
  assert.equal(shownUri("https://u:p@host/a?token=s&x=1#access_token=SECRET"), "https://host/a?token=***&x=***#***");
  assert.equal(shownUri("https://host/cb#access_token=SECRET"), "https://host/cb#***");
  assert.equal(shownUri("postgres://user:secretpw@h1:5432,h2:5432/db?x=1"), "postgres://h1:5432,h2:5432/db?***");
  assert.equal(shownUri("https://us er:pw@ho st/x#frag"), "https://ho st/x#***");
  assert.equal(shownUri("file:///plain"), "file:///plain");
});

test("peer attributes: transport, revision, session id when given, addresses with their ports, toolbox and server", () => {
  assert.deepEqual(attributesOf((span) => setPeerAttributes(span, { transport: "pipe", protocolVersion: "2026-07-28" })), {
    "network.transport": "pipe",
    "mcp.protocol.version": "2026-07-28",
  });
  const remote = { transport: "tcp", sessionId: "abc", ...serverOfUrl("https://mcp.example.com/mcp"), toolbox: "dev", server: "remote" } as const;
  assert.deepEqual(attributesOf((span) => setPeerAttributes(span, remote)), {
    "network.transport": "tcp",
    "mcp.session.id": "abc",
    "server.address": "mcp.example.com",
    "server.port": 443,
    "mcp_workbench.toolbox": "dev",
    "mcp_workbench.server": "remote",
  });
  assert.deepEqual(attributesOf((span) => setPeerAttributes(span, { transport: "tcp", serverPort: 80 })), { "network.transport": "tcp" });
});

test("serverOfUrl: the host (IPv6 without brackets) and the port, else the scheme's", () => {
  assert.deepEqual(serverOfUrl("http://127.0.0.1:8080/mcp"), { serverAddress: "127.0.0.1", serverPort: 8080 });
  assert.deepEqual(serverOfUrl("http://[::1]/mcp"), { serverAddress: "::1", serverPort: 80 });
  assert.equal(serverOfUrl("not a url"), undefined);
});

test("metric attributes: the conventions' low-cardinality ones and ours; no ids, session or URI", () => {
  const all = {
    "mcp.method.name": "resources/read",
    "jsonrpc.request.id": "5",
    "mcp.session.id": "abc",
    "mcp.resource.uri": "file:///x",
    "network.transport": "tcp",
    "error.type": "-32002",
    "mcp_workbench.toolbox": "dev",
    "custom": "x",
  };
  const histogram = new Histogram("h", "d", "s");
  histogram.recordOf(1, all, METRIC_ATTRIBUTES);
  assert.deepEqual(histogram.collect()!.points[0]!.attributes, {
    "mcp.method.name": "resources/read",
    "error.type": "-32002",
    "network.transport": "tcp",
    "mcp_workbench.toolbox": "dev",
  });
});
