/**
 * The client's transport with telemetry on (issue 50): each request a SERVER span from its arrival
 * to its answer, under the client's `traceparent`; a cancelled request's span, and those the
 * session's end leaves, end too; the protocol revision the session speaks is on every span.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../../src/protocol/sdk.ts";
import type { MessageTransport } from "../../src/transport/message-transport.ts";
import { TracedTransport } from "../../src/upstream/traced-transport.ts";
import { resolveTelemetry, SpanKind } from "../../src/telemetry/index.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";
import type { RecordingSpan } from "../../src/telemetry/span.ts";

/** A client's transport that hands on what the test sends in, and keeps what goes out. */
function clientTransport() {
  const sent: JSONRPCMessage[] = [];
  const inner: MessageTransport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
  };
  return { inner, sent, receive: (message: JSONRPCMessage) => inner.claim?.(message) };
}

function traced() {
  const { settings } = resolveTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_BSP_SCHEDULE_DELAY: "3600000" });
  const telemetry = createTelemetry(settings, { fetch: () => Promise.resolve(new Response(null)) });
  const client = clientTransport();
  const transport = new TracedTransport(client.inner, telemetry, "tcp");
  transport.knownTool = (name) => name === "use_tool";
  const claimed: JSONRPCMessage[] = [];
  transport.claim = (message) => {
    claimed.push(message);
    return true;
  };
  return { telemetry, client, transport, claimed };
}

test("traced transport: a request's SERVER span under the client's traceparent, ended by its answer, with the session's revision", async () => {
  const { telemetry, client, transport, claimed } = traced();
  client.receive({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } });
  const initialize = transport.spanOf(0) as RecordingSpan;
  await transport.send({ jsonrpc: "2.0", id: 0, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "w", version: "1" } } });
  assert.equal(transport.spanOf(0), undefined);
  assert.ok(initialize.endMs > 0);
  assert.equal(initialize.attributes["mcp.protocol.version"], "2025-11-25");
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  client.receive({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "use_tool", _meta: { traceparent } } });
  const span = transport.spanOf(1) as RecordingSpan;
  assert.equal(span.kind, SpanKind.SERVER);
  assert.equal(span.name, "tools/call use_tool");
  assert.equal(span.context!.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  assert.equal(span.parent!.spanId, "00f067aa0ba902b7");
  assert.equal(span.attributes["network.transport"], "tcp");
  assert.equal(span.attributes["mcp.protocol.version"], "2025-11-25");
  assert.equal(claimed.length, 2, "every message is handed on");
  // A request of ours to the client with the same id is not its answer.
  await transport.send({ jsonrpc: "2.0", id: 1, method: "sampling/createMessage", params: {} });
  assert.equal(span.endMs, 0);
  await transport.send({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params" } });
  assert.equal(span.attributes["error.type"], "-32602");
  assert.equal(client.sent.length, 3, "every message goes out");
  await telemetry.shutdown(100);
});

test("traced transport: a cancelled request's span ends at the cancellation, the others when the session ends", async () => {
  const { telemetry, client, transport } = traced();
  client.receive({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "use_tool" } });
  client.receive({ jsonrpc: "2.0", id: "b", method: "prompts/get", params: { name: "p" } });
  const [a, b] = [transport.spanOf("a"), transport.spanOf("b")] as RecordingSpan[];
  client.receive({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } });
  assert.equal(a!.attributes["error.type"], "AbortError");
  assert.equal(transport.spanOf("a"), undefined);
  assert.equal(b!.endMs, 0);
  client.inner.onclose?.();
  assert.ok(b!.endMs > 0);
  assert.equal(transport.spanOf("b"), undefined);
  await telemetry.shutdown(100);
});

test("traced transport: what a client makes up is bounded before it names a span: a method, a tool, a prompt, a revision", () => {
  const { client, transport } = traced();
  client.receive({ jsonrpc: "2.0", id: 1, method: "x".repeat(100_000), params: {} });
  client.receive({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "not_offered_" + "y".repeat(100_000) } });
  client.receive({ jsonrpc: "2.0", id: 3, method: "prompts/get", params: { name: "p".repeat(100_000) } });
  client.receive({ jsonrpc: "2.0", id: 4, method: "ping", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "9999-01-01" } } });
  const [method, tool, prompt, ping] = [1, 2, 3, 4].map((id) => transport.spanOf(id) as RecordingSpan);
  assert.equal(method.name, "_OTHER");
  assert.equal(method.attributes["mcp.method.name"], "_OTHER");
  assert.equal(tool.name, "tools/call _OTHER");
  assert.equal(tool.attributes["gen_ai.tool.name"], "_OTHER");
  assert.ok(prompt.name.length <= 220, `${prompt.name.length} characters`);
  assert.equal(ping.attributes["mcp.protocol.version"], undefined, "a revision the workbench does not speak is not recorded");
});

test("traced transport: a resource URI's user, password and query values are not recorded", () => {
  const { client, transport } = traced();
  client.receive({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "https://bob:pw@files.example/a.txt?sig=SECRET&x=1" } });
  client.receive({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "note://a" } });
  assert.equal((transport.spanOf(1) as RecordingSpan).attributes["mcp.resource.uri"], "https://files.example/a.txt?sig=***&x=***");
  assert.equal((transport.spanOf(2) as RecordingSpan).attributes["mcp.resource.uri"], "note://a");
});

test("traced transport: a notification relayed to another replica, and one heard from there, pass through it (issue 48)", () => {
  const { client, transport } = traced();
  const relayed: JSONRPCMessage[] = [];
  client.inner.relay = (message) => relayed.push(message);
  const notice: JSONRPCMessage = { jsonrpc: "2.0", method: "notifications/resources/list_changed" };
  transport.relay?.(notice);
  assert.deepEqual(relayed, [notice]);
  const heard: JSONRPCMessage[] = [];
  transport.heard = (message) => heard.push(message);
  client.inner.heard?.(notice);
  assert.deepEqual(heard, [notice]);
});
