import { test } from "node:test";
import assert from "node:assert/strict";
import { boundedFetch, MessageTooLarge } from "../../../src/downstream/links/bounded-fetch.ts";
import { FlowGate } from "../../../src/transport/flow-gate.ts";

/** A fetch that answers every request with this body and content type. */
const serving = (type: string, text: string) => () => Promise.resolve(new Response(text, { headers: { "content-type": type } }));
const URL_ = "http://127.0.0.1:1/mcp";
const readText = async (response: Response) => await response.text();

test("boundedFetch: SSE events are measured one by one, from blank line to blank line (LF, CRLF or CR)", async () => {
  const events = "data: 0123456789\n\ndata: 0123456789\r\n\r\ndata: 0123456789\r\rdata: 0123456789\n\n";
  assert.equal(await readText(await boundedFetch(20, undefined, serving("text/event-stream", events))(URL_)), events);
  const big = `data: ${"x".repeat(30)}\n\n`;
  await assert.rejects(readText(await boundedFetch(20, undefined, serving("text/event-stream", big))(URL_)), MessageTooLarge);
  // Two lines of one event count together: only an empty line ends an event.
  await assert.rejects(readText(await boundedFetch(20, undefined, serving("text/event-stream", "data: 0123456789\ndata: 0123456789\n\n"))(URL_)), MessageTooLarge);
});

test("boundedFetch: a JSON body is measured whole", async () => {
  assert.equal(await readText(await boundedFetch(20, undefined, serving("application/json", '{"a":"0123456789"}'))(URL_)), '{"a":"0123456789"}');
  await assert.rejects(readText(await boundedFetch(20, undefined, serving("application/json", `{"a":"${"x".repeat(30)}"}`))(URL_)), MessageTooLarge);
});

test("boundedFetch: reading waits while the read gate is held", async () => {
  const gate = new FlowGate();
  gate.hold(test);
  const response = await boundedFetch(1_000, gate, serving("application/json", '{"a":1}'))(URL_);
  let done = false;
  const text = readText(response).then((value) => ((done = true), value));
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(done, false, "read while the gate was held");
  gate.release(test);
  assert.equal(await text, '{"a":1}');
});
