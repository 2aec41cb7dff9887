/**
 * A request's answer over HTTP as plain JSON when it comes first, as an event stream once
 * something goes before it or once it is slow (issue 42), and the client's leaving noticed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { PendingReply, type ReplyOptions, UPGRADE_MS } from "../../../src/upstream/http/pending-reply.ts";

const options = (more: Partial<ReplyOptions> = {}): ReplyOptions => ({
  headers: { "mcp-session-id": "s" },
  streamHeaders: { "Cache-Control": "no-cache" },
  heartbeatMs: 0,
  heartbeat: ": \n\n",
  ...more,
});
const ANSWER = { jsonrpc: "2.0", id: 1, result: {} };
const NOTICE = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } };

test("pending reply: an answer that comes first is one whole JSON response with the reply's headers", async () => {
  const reply = new PendingReply(options());
  reply.finish(ANSWER);
  reply.event(NOTICE);
  const response = await reply.response;
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(response.headers.get("mcp-session-id"), "s");
  assert.equal(response.headers.get("cache-control"), null);
  assert.deepEqual(await response.json(), ANSWER);
});

test("pending reply: something before the answer makes it an event stream, the answer its last event", async () => {
  const reply = new PendingReply(options());
  reply.event(NOTICE);
  reply.finish(ANSWER);
  const response = await reply.response;
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  assert.equal(response.headers.get("cache-control"), "no-cache");
  assert.equal(response.headers.get("mcp-session-id"), "s");
  assert.equal(await response.text(), `event: message\ndata: ${JSON.stringify(NOTICE)}\n\nevent: message\ndata: ${JSON.stringify(ANSWER)}\n\n`);
});

test("pending reply: a slow answer gets its stream within two ticks, heartbeats on it, and a client that leaves cancels", async () => {
  let cancelled = 0;
  const reply = new PendingReply(options({ heartbeatMs: 20, cancel: () => cancelled++ }));
  const began = Date.now();
  const response = await reply.response;
  const waited = Date.now() - began;
  assert.ok(waited >= UPGRADE_MS - 50 && waited < 2 * UPGRADE_MS + 500, `streamed after ${waited} ms`);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const reader = response.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), ": \n\n");
  await reader.cancel();
  assert.equal(cancelled, 1);
  reply.finish(ANSWER);
  assert.equal(cancelled, 1, "an answer after the client left goes nowhere");
});
