/** The trace context in `params._meta` (SEP-414) and in HTTP headers: read, written, never changing the caller's objects. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { extractHeaders, extractMeta, injectMeta, traceHeaders } from "../../src/telemetry/meta-context.ts";
import { NOOP_SPAN, type Span } from "../../src/telemetry/span.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";
const PARENT = `00-${TRACE}-${SPAN}-01`;

/** A span as far as propagation reads it. */
function spanWith(context: Span["context"], baggage?: string): Span {
  return { ...NOOP_SPAN, recording: true, context, baggage };
}

test("extractMeta: traceparent, tracestate and baggage of _meta; invalid parts left out", () => {
  const read = extractMeta({ traceparent: PARENT, tracestate: "rojo=1", baggage: "k=v", other: 1 });
  assert.deepEqual(read, { parent: { traceId: TRACE, spanId: SPAN, traceFlags: 1, remote: true, traceState: "rojo=1" }, baggage: "k=v" });
  assert.deepEqual(extractMeta({ traceparent: PARENT, tracestate: "Bad" }).parent?.traceState, undefined);
  assert.deepEqual(extractMeta({ traceparent: "nonsense", tracestate: "rojo=1" }), {});
  assert.deepEqual(extractMeta({ baggage: "k=v" }), { baggage: "k=v" });
  assert.deepEqual(extractMeta(undefined), {});
  assert.deepEqual(extractMeta("00-..."), {});
});

test("extractHeaders: the HTTP request's own traceparent", () => {
  const headers = new Headers({ traceparent: PARENT, tracestate: "congo=2" });
  assert.deepEqual(extractHeaders(headers).parent, { traceId: TRACE, spanId: SPAN, traceFlags: 1, remote: true, traceState: "congo=2" });
  assert.deepEqual(extractHeaders(new Headers()), {});
});

test("injectMeta: new params whose _meta carries the span's context, other keys kept, the caller's objects unchanged", () => {
  const params = { name: "echo", arguments: { a: 1 }, _meta: { progressToken: 5, tracestate: "stale=1", traceparent: "old" } };
  const before = structuredClone(params);
  const span = spanWith({ traceId: TRACE, spanId: "1111111111111111", traceFlags: 1 }, "k=v");
  const written = injectMeta(params, span);
  assert.deepEqual(params, before, "the caller's params are not changed");
  assert.notEqual(written, params);
  assert.equal(written.arguments, params.arguments, "arguments are passed by reference, not copied");
  assert.deepEqual(written._meta, { progressToken: 5, traceparent: `00-${TRACE}-1111111111111111-01`, baggage: "k=v" });
});

test("injectMeta: the span's tracestate goes with its traceparent; params without _meta get one", () => {
  const span = spanWith({ traceId: TRACE, spanId: "1111111111111111", traceFlags: 0, traceState: "rojo=1" });
  assert.deepEqual(injectMeta({ name: "x" }, span), { name: "x", _meta: { traceparent: `00-${TRACE}-1111111111111111-00`, tracestate: "rojo=1" } });
  assert.deepEqual(injectMeta(undefined, span), { _meta: { traceparent: `00-${TRACE}-1111111111111111-00`, tracestate: "rojo=1" } });
});

test("injectMeta and traceHeaders: with tracing off the params are the same object and there are no headers", () => {
  const params = { name: "echo", _meta: { traceparent: PARENT } };
  assert.equal(injectMeta(params, NOOP_SPAN), params);
  assert.deepEqual(traceHeaders(NOOP_SPAN), {});
  assert.equal(traceHeaders(NOOP_SPAN), traceHeaders(NOOP_SPAN), "one shared empty object: nothing allocated");
});

test("traceHeaders: traceparent, tracestate and baggage for a remote server", () => {
  const span = spanWith({ traceId: TRACE, spanId: SPAN, traceFlags: 1, traceState: "rojo=1" }, "k=v");
  assert.deepEqual(traceHeaders(span), { traceparent: PARENT, tracestate: "rojo=1", baggage: "k=v" });
});
