/**
 * The server requests that come on the SSE stream answering one of our POSTs are noted with that
 * POST's request id, whatever the chunking and line ends; results and other streams are not.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventWatcher, MAX_LOOKED_AT, requestIdOf, StreamOwners } from "../../../src/downstream/links/stream-owners.ts";
import type { RequestId } from "../../../src/protocol/sdk.ts";

const encode = (text: string) => new TextEncoder().encode(text);

function watched(chunks: string[]): RequestId[] {
  const found: RequestId[] = [];
  const watcher = new EventWatcher((id) => found.push(id));
  for (const chunk of chunks) watcher.push(encode(chunk));
  return found;
}

test("stream owners: the body of a POST says which request it carries", () => {
  assert.equal(requestIdOf('{"jsonrpc":"2.0","id":"wb-12","method":"tools/call","params":{"arguments":{"id":"x"}}}'), "wb-12");
  assert.equal(requestIdOf('{"method":"prompts/get","params":{"name":"p"},"jsonrpc":"2.0","id":4}'), 4);
  assert.equal(requestIdOf('{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}'), undefined, "an answer of ours");
  assert.equal(requestIdOf('{"jsonrpc":"2.0","method":"notifications/initialized"}'), undefined);
});

test("stream owners: requests in the events are found across chunks and line ends; results are not", () => {
  const request = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"elicitation/create","params":{"message":"?"}}`;
  assert.deepEqual(watched([`event: message\ndata: ${request(1)}\n\n`]), [1]);
  // Split anywhere, CRLF and CR line ends, data over two lines.
  const text = `id: 7\r\ndata: ${request(2)}\r\n\r\ndata: {"jsonrpc":"2.0",\rdata: "id":3,"method":"roots/list"}\r\r: comment\n\n`;
  for (const size of [1, 2, 5, 17]) {
    const chunks: string[] = [];
    for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
    assert.deepEqual(watched(chunks), [2, 3], `chunks of ${size}`);
  }
  assert.deepEqual(watched([`data: {"jsonrpc":"2.0","id":"wb-1","result":{"content":[{"type":"text","text":"\\"method\\""}]}}\n\n`]), []);
  assert.deepEqual(watched(['data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n']), [], "a notification has no id");
  // An event too large to be a question is not looked at; the next one is.
  const large = `data: {"jsonrpc":"2.0","id":9,"method":"x","params":{"pad":"${"x".repeat(MAX_LOOKED_AT)}"}}\n\n`;
  assert.deepEqual(watched([large.slice(0, 1_000), large.slice(1_000), `data: ${request(10)}\n\n`]), [10]);
});

test("stream owners: a request on the stream of a POST is taken once, with that POST's id", async () => {
  const owners = new StreamOwners();
  const sse = (events: string) => new Response(events, { headers: { "content-type": "text/event-stream" } });
  const inner = (_input: unknown, init?: RequestInit) => {
    const id = init?.method === "POST" ? JSON.parse(String(init.body)).id : undefined;
    return Promise.resolve(sse(`data: {"jsonrpc":"2.0","id":${id === "wb-1" ? 0 : id === "wb-2" ? 1 : 5},"method":"elicitation/create","params":{}}\n\n`));
  };
  const fetch = owners.watch(inner as never);
  const post = (id: string) => ({ method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: {} }) });
  const [second, first] = await Promise.all([fetch("http://127.0.0.1/mcp", post("wb-2")), fetch("http://127.0.0.1/mcp", post("wb-1"))]);
  await second.text();
  await first.text();
  assert.equal(owners.take(1), "wb-2");
  assert.equal(owners.take(0), "wb-1");
  assert.equal(owners.take(0), undefined, "taken once");
  // A GET (the standalone stream) belongs to no request.
  await (await fetch("http://127.0.0.1/mcp", { method: "GET" })).text();
  assert.equal(owners.take(5), undefined);
});
