/** W3C Trace Context: traceparent and tracestate read and written, baggage passed on, ids made. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatTraceparent, parseTraceparent, parseTracestate, passBaggage } from "../../src/telemetry/trace-context.ts";
import { isSpanId, isTraceId, newSpanId, newTraceId } from "../../src/telemetry/ids.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

test("traceparent: a valid value gives a remote context with its ids and flags", () => {
  assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, spanId: SPAN, traceFlags: 1, remote: true });
  assert.deepEqual(parseTraceparent(` 00-${TRACE}-${SPAN}-00 `), { traceId: TRACE, spanId: SPAN, traceFlags: 0, remote: true });
});

test("traceparent: a later version may carry more fields after a dash; version 00 may not", () => {
  assert.equal(parseTraceparent(`01-${TRACE}-${SPAN}-01-what-comes-next`)?.traceId, TRACE);
  assert.equal(parseTraceparent(`00-${TRACE}-${SPAN}-01-more`), undefined);
  assert.equal(parseTraceparent(`01-${TRACE}-${SPAN}-01x`), undefined);
});

test("traceparent: invalid values are no parent", () => {
  const invalid = [
    undefined, 42, "", `ff-${TRACE}-${SPAN}-01`, `00-${TRACE.toUpperCase()}-${SPAN}-01`, `00-${"0".repeat(32)}-${SPAN}-01`,
    `00-${TRACE}-${"0".repeat(16)}-01`, `00-${TRACE}-${SPAN}-1`, `00-${TRACE}-${SPAN}-0g`, `0-${TRACE}-${SPAN}-01`,
    `00_${TRACE}-${SPAN}-01`, `00-${TRACE.slice(1)}-${SPAN}-01`, `xx-${TRACE}-${SPAN}-01`,
  ];
  for (const value of invalid) assert.equal(parseTraceparent(value), undefined, String(value));
});

test("traceparent: written as version 00 with the sampled flag alone", () => {
  assert.equal(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 1 }), `00-${TRACE}-${SPAN}-01`);
  assert.equal(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 0 }), `00-${TRACE}-${SPAN}-00`);
  assert.equal(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 0xff }), `00-${TRACE}-${SPAN}-01`);
  const read = parseTraceparent(formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags: 1 }));
  assert.equal(read?.spanId, SPAN);
});

test("tracestate: valid members are kept in order, blanks and empty members dropped", () => {
  assert.equal(parseTracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"), "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
  assert.equal(parseTracestate(" rojo=1 ,, congo=2 ,"), "rojo=1,congo=2");
  assert.equal(parseTracestate("tenant@vendor=x,a_b-c*d/e=v v"), "tenant@vendor=x,a_b-c*d/e=v v");
});

test("tracestate: an invalid value is dropped whole", () => {
  for (const value of ["Rojo=1", "rojo", "=1", "rojo=1,rojo=2", "rojo=a,b", "rojo=1=2", "rojo=\u00e9", "rojo= ", 7, ""]) {
    assert.equal(parseTracestate(value), undefined, String(value));
  }
  const members = Array.from({ length: 33 }, (_, index) => `k${index}=v`);
  assert.equal(parseTracestate(members.slice(0, 32).join(",")), members.slice(0, 32).join(","));
  assert.equal(parseTracestate(members.join(",")), undefined, "33 members are too many");
});

test("baggage: passed on as it came, unless too long, not printable ASCII, or empty", () => {
  assert.equal(passBaggage("userId=alice,serverNode=DF%2028"), "userId=alice,serverNode=DF%2028");
  assert.equal(passBaggage("a=" + "x".repeat(8190)), "a=" + "x".repeat(8190));
  assert.equal(passBaggage("a=" + "x".repeat(8191)), undefined);
  assert.equal(passBaggage("a=1\r\nX-Injected: yes"), undefined);
  assert.equal(passBaggage("a=\u00e9"), undefined);
  assert.equal(passBaggage("  "), undefined);
  assert.equal(passBaggage({}), undefined);
});

test("ids: random, of the right length, lowercase hex and never all zeros", () => {
  const traces = new Set(Array.from({ length: 2000 }, newTraceId));
  const spans = new Set(Array.from({ length: 2000 }, newSpanId));
  assert.equal(traces.size, 2000);
  assert.equal(spans.size, 2000);
  for (const id of traces) assert.ok(isTraceId(id), id);
  for (const id of spans) assert.ok(isSpanId(id), id);
  assert.ok(!isTraceId("0".repeat(32)) && !isSpanId("0".repeat(16)) && !isTraceId(TRACE.toUpperCase()));
});
