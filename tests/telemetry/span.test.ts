/** A span's rules: limits on attributes, events and links, status, one end, content only when asked, and how a failure is named. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { NOOP_SPAN, RecordingSpan, SpanKind, type SpanLimits, StatusCode } from "../../src/telemetry/span.ts";
import { failureOf } from "../../src/telemetry/outcome.ts";

const LIMITS: SpanLimits = { attributeCount: 3, attributeValueLength: 5, eventCount: 1, linkCount: 1 };
const CONTEXT = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };

function spanOf(recordContent = false, limits = LIMITS) {
  const ended: RecordingSpan[] = [];
  const span = new RecordingSpan({ limits, recordContent, ended: (done) => ended.push(done), child: () => NOOP_SPAN }, "op", SpanKind.INTERNAL, CONTEXT, undefined, undefined);
  return { span, ended };
}

test("span: attributes past the count limit are dropped and counted; a key set again is no new one", () => {
  const { span } = spanOf();
  span.setAttribute("a", 1).setAttribute("b", 2).setAttribute("c", 3).setAttribute("a", 4).setAttribute("d", 5).setAttribute("e", undefined);
  assert.deepEqual({ ...span.attributes }, { a: 4, b: 2, c: 3 });
  assert.equal(span.droppedAttributes, 1);
});

test("span: a string longer than the value limit is cut, never inside a surrogate pair, in arrays too", () => {
  const { span } = spanOf();
  span.setAttribute("s", "abcdefgh").setAttribute("pair", "abcd\u{1D11E}").setAttribute("list", ["123456", "ok"]);
  assert.deepEqual({ ...span.attributes }, { s: "abcde", pair: "abcd", list: ["12345", "ok"] });
});

test("span: __proto__ is an attribute like any other", () => {
  const { span } = spanOf();
  span.setAttribute("__proto__", "x");
  assert.deepEqual(Object.keys(span.attributes), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(span.attributes), null);
});

test("span: events and links past their limits are dropped and counted", () => {
  const { span } = spanOf();
  span.addEvent("one", { k: "longer than five" }).addEvent("two");
  span.addLink(CONTEXT).addLink(CONTEXT);
  assert.deepEqual(span.events.map((event) => [event.name, event.attributes]), [["one", { k: "longe" }]]);
  assert.equal(span.droppedEvents, 1);
  assert.equal(span.links.length, 1);
  assert.equal(span.droppedLinks, 1);
});

test("span: OK is final, UNSET changes nothing, ERROR keeps its message", () => {
  const { span } = spanOf(false, { ...LIMITS, attributeValueLength: 100 });
  span.setStatus(StatusCode.ERROR, "first");
  assert.deepEqual(span.status, { code: 2, message: "first" });
  span.setStatus(StatusCode.UNSET);
  assert.deepEqual(span.status, { code: 2, message: "first" });
  span.setStatus(StatusCode.OK, "ignored");
  span.setStatus(StatusCode.ERROR, "late");
  assert.deepEqual(span.status, { code: 1 });
});

test("span: it ends once; nothing changes it afterwards; its owner is told once", () => {
  const { span, ended } = spanOf();
  span.end();
  const end = span.endTimeUnixNano;
  span.end({ isError: true });
  span.fail(new Error("late"));
  span.setAttribute("late", 1).addEvent("late").setStatus(StatusCode.ERROR, "late");
  assert.equal(ended.length, 1);
  assert.equal(span.endTimeUnixNano, end);
  assert.ok(end > span.startTimeUnixNano);
  assert.deepEqual({ ...span.attributes }, {});
  assert.equal(span.status.code, StatusCode.UNSET);
  assert.ok(span.durationSeconds > 0 && span.durationSeconds < 60);
});

test("span: a result with isError is a tool_error; one without is no error", () => {
  const wide = { ...LIMITS, attributeValueLength: 100 };
  const failed = spanOf(false, wide).span;
  failed.end({ content: [], isError: true });
  assert.equal(failed.attributes["error.type"], "tool_error");
  assert.equal(failed.status.code, StatusCode.ERROR);
  const fine = spanOf(false, wide).span;
  fine.end({ content: [], isError: false });
  assert.equal(fine.attributes["error.type"], undefined);
  assert.equal(fine.status.code, StatusCode.UNSET);
});

test("span: content is recorded only with recordContent, as JSON, through the mask", () => {
  const off = spanOf(false).span;
  off.setContent("arguments", { token: "s3cret" });
  assert.deepEqual({ ...off.attributes }, {});
  const on = spanOf(true, { ...LIMITS, attributeValueLength: 100 }).span;
  on.setContent("arguments", { token: "s3cret" }, (json) => json.replaceAll("s3cret", "***"));
  on.setContent("result", { content: [{ type: "text", text: "hi" }] });
  assert.deepEqual({ ...on.attributes }, {
    "gen_ai.tool.call.arguments": '{"token":"***"}',
    "gen_ai.tool.call.result": '{"content":[{"type":"text","text":"hi"}]}',
  });
});

test("failureOf: a JSON-RPC error gives its code; other errors their class name; never a message", () => {
  assert.deepEqual(failureOf({ code: -32601, message: "Method not found" }), { type: "-32601", statusCode: "-32601" });
  assert.deepEqual(failureOf(Object.assign(new Error("Cannot reach: its stderr said: token=abc"), { code: -32001 })), { type: "-32001", statusCode: "-32001" });
  assert.deepEqual(failureOf(new TypeError("at /home/alice/secret.txt")), { type: "TypeError" });
  assert.deepEqual(failureOf(new DOMException("late", "TimeoutError")), { type: "TimeoutError" });
  assert.deepEqual(failureOf(new Error("plain")), { type: "_OTHER" });
  assert.deepEqual(failureOf({ code: "ENOENT", name: "bad name!" }), { type: "_OTHER" });
  assert.deepEqual(failureOf("text"), { type: "_OTHER" });
  assert.deepEqual(failureOf(undefined), { type: "_OTHER" });
});

test("span: what the request says is described once, when first read or added to, before the caller's own, even after the end", () => {
  let described = 0;
  const owner = { limits: LIMITS, recordContent: false, ended: () => {}, child: () => NOOP_SPAN };
  const describe = (span: RecordingSpan) => {
    described++;
    span.setAttribute("a", "req").setAttribute("b", "peer");
  };
  const ended = new RecordingSpan(owner, "op", SpanKind.SERVER, CONTEXT, undefined, undefined, "server", describe);
  ended.end();
  // Not on the call's path: nothing is described by the start and the end.
  assert.equal(described, 0);
  assert.deepEqual({ ...ended.attributes }, { a: "req", b: "peer" });
  assert.deepEqual({ ...ended.attributes }, { a: "req", b: "peer" });
  assert.equal(described, 1);
  // A caller's own attribute comes after the described ones (and wins over a described key).
  const open = new RecordingSpan(owner, "op", SpanKind.SERVER, CONTEXT, undefined, undefined, "server", describe);
  open.setAttribute("b", "own").setAttribute("c", "x").setAttribute("d", "dropped");
  assert.deepEqual({ ...open.attributes }, { a: "req", b: "own", c: "x" });
  assert.equal(open.droppedAttributes, 1);
  assert.equal(described, 2);
});
