/**
 * The CLIENT spans of a server session's own requests (issue 50), on a stub transport and a stub
 * telemetry: only initialize and the listings get one (a tools/call, a task's poll or a forwarded
 * prompts/get are someone else's, or bookkeeping), with its context in `_meta` and no baggage; an
 * answer, an error, a cancellation, a failed send or the close ends it; the SDK's handlers reach
 * the inner transport.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage, Transport } from "../helpers/sdk.ts";
import { TracedRequests } from "../../src/downstream/traced-requests.ts";
import { NOOP_SPAN, type Span } from "../../src/telemetry/span.ts";
import { NOOP_TELEMETRY, type Telemetry } from "../../src/telemetry/off.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

function setup(failSend = false) {
  const spans: { method: string; parent?: Span; outcome?: string }[] = [];
  const telemetry: Telemetry = {
    ...NOOP_TELEMETRY,
    tracing: true,
    clientSpan(request, parent) {
      const record: (typeof spans)[number] = { method: request.method, parent };
      spans.push(record);
      return {
        ...NOOP_SPAN,
        context: { traceId: TRACE, spanId: `00000000000000${String(spans.length).padStart(2, "0")}`, traceFlags: 1 },
        baggage: "member=alice",
        end: () => void (record.outcome ??= "ok"),
        fail: (error: unknown) => void (record.outcome ??= error instanceof Error ? error.name : "error"),
      };
    },
  };
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = {
    start: () => Promise.resolve(),
    send: (message) => {
      sent.push(message);
      return failSend ? Promise.reject(new Error("gone")) : Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const scope: Span = { ...NOOP_SPAN };
  const traced = new TracedRequests(inner, telemetry, { transport: "pipe", toolbox: "dev", server: "s" }, () => scope);
  const answers: JSONRPCMessage[] = [];
  traced.onmessage = (message) => void answers.push(message);
  return { traced, inner, sent, spans, scope, answers };
}

test("traced requests: initialize and the listings are CLIENT spans under the scope, their context in _meta without baggage, ended by the answer", async () => {
  const { traced, inner, sent, spans, scope, answers } = setup();
  await traced.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25" } });
  await traced.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { progressToken: 7 } } });
  assert.deepEqual(sent.map((message) => (message as { params: { _meta?: unknown } }).params._meta), [
    { traceparent: `00-${TRACE}-0000000000000001-01` },
    { progressToken: 7, traceparent: `00-${TRACE}-0000000000000002-01` },
  ]);
  inner.onmessage!({ jsonrpc: "2.0", id: 0, result: {} });
  inner.onmessage!({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "no" } });
  assert.deepEqual(spans.map(({ method, parent, outcome }) => [method, parent === scope, outcome]), [["initialize", true, "ok"], ["tools/list", true, "error"]]);
  assert.equal(answers.length, 2, "the answers go on to the SDK's handler");
});

test("traced requests: a tools/call, a task's poll, a forwarded prompts/get and notifications pass as they are, with no span", async () => {
  const { traced, sent, spans } = setup();
  const messages: JSONRPCMessage[] = [
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "x" } },
    { jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId: "t" } },
    { jsonrpc: "2.0", id: 4, method: "prompts/get", params: { name: "p" } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 5, result: {} },
  ];
  for (const message of messages) await traced.send(message);
  assert.deepEqual(sent, messages);
  assert.equal(sent.every((message, index) => message === messages[index]), true, "the same objects");
  assert.deepEqual(spans, []);
});

test("traced requests: a cancelled request (the SDK's timeout), a failed send and the close each end their span", async () => {
  const { traced, spans } = setup();
  await traced.send({ jsonrpc: "2.0", id: 0, method: "tools/list" });
  await traced.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "timeout" } });
  assert.equal(spans[0].outcome, "AbortError", "ended when cancelled, not at the close");
  await traced.send({ jsonrpc: "2.0", id: 1, method: "prompts/list" });
  await traced.close();
  assert.deepEqual(spans.map((span) => span.outcome), ["AbortError", "AbortError"]);
  const failing = setup(true);
  await assert.rejects(failing.traced.send({ jsonrpc: "2.0", id: 0, method: "initialize" }), /gone/);
  assert.deepEqual(failing.spans.map((span) => span.outcome), ["Error"]);
});

test("traced requests: the SDK's onerror and onclose are the inner transport's, chained as Protocol.connect chains them", () => {
  const { traced, inner } = setup();
  const seen: string[] = [];
  inner.onerror = () => seen.push("link's onerror");
  const linkOnError = traced.onerror;
  traced.onerror = (error) => (linkOnError?.(error), seen.push("sdk's onerror"));
  traced.onclose = () => seen.push("closed");
  inner.onerror!(new Error("x"));
  inner.onclose!();
  assert.deepEqual(seen, ["link's onerror", "sdk's onerror", "closed"]);
});
