/**
 * whenSent: a short whole JSON response counts as sent once handed over, not wrapped in a stream
 * (issue 42); a long one, or a stream, is in flight until its body has been read.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonRpcError, TRANSPORT_ERROR, WHOLE_BODY_BYTES, wholeJson, whenSent } from "../../../src/upstream/http/replies.ts";

test("replies: a short whole response is sent as it is, done at once; a long one and a stream only once read", async () => {
  let done = 0;
  const short = wholeJson(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), 200);
  assert.equal(whenSent(short, () => done++), short, "the same response, no stream around it");
  assert.equal(done, 1);
  const refusal = jsonRpcError(429, TRANSPORT_ERROR, "Too many requests");
  assert.equal(whenSent(refusal, () => done++), refusal);
  assert.equal(done, 2);
  assert.equal(refusal.headers.get("content-type"), "application/json");
  const long = whenSent(wholeJson(JSON.stringify("x".repeat(WHOLE_BODY_BYTES)), 200), () => done++);
  assert.equal(done, 2, "a long answer is in flight until read");
  assert.equal((await long.text()).length, WHOLE_BODY_BYTES + 2);
  assert.equal(done, 3);
  const stream = whenSent(new Response(new ReadableStream({ start: (controller) => (controller.enqueue(new Uint8Array([1])), controller.close()) })), () => done++);
  assert.equal(done, 3);
  await stream.arrayBuffer();
  assert.equal(done, 4);
});

test("replies: a whole answer counted as sent at once holds at most WHOLE_BODY_BYTES bytes, whatever its characters", async () => {
  // 60,000 CJK characters: under the bound in UTF-16 units, 180,000 bytes on the wire.
  const text = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "中".repeat(60_000) }] } });
  assert.ok(text.length <= WHOLE_BODY_BYTES);
  let sentAtOnce = false;
  const response = whenSent(wholeJson(text, 200), () => sentAtOnce = true);
  assert.equal(sentAtOnce, false, "180,000 bytes are not a short answer: in flight until read");
  assert.equal((await response.arrayBuffer()).byteLength, 180_073);
  assert.equal(sentAtOnce, true, "done once read");
});
