import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../helpers/sdk.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";

const encoder = new TextEncoder();

/** Feeds the chunks through a transport and collects what it reports until the stream ends. */
async function feed(chunks: Uint8Array[], options = {}) {
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const transport = new StreamTransport(readable, new WritableStream(), options);
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  await closed;
  return { messages, errors };
}

const ping = (id: number) => ({ jsonrpc: "2.0" as const, id, method: "ping" });
const line = (value: unknown) => JSON.stringify(value) + "\n";

/** Cuts bytes into pieces of the given sizes, repeating the last size. */
function cut(bytes: Uint8Array, size: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.slice(i, i + size));
  return pieces;
}

test("transport: messages split at every possible chunk boundary arrive whole", async () => {
  const bytes = encoder.encode(line(ping(1)) + line(ping(2)));
  for (let at = 1; at < bytes.length; at++) {
    const { messages, errors } = await feed([bytes.slice(0, at), bytes.slice(at)]);
    assert.deepEqual(messages, [ping(1), ping(2)], `split at ${at}`);
    assert.deepEqual(errors, []);
  }
});

test("transport: byte-by-byte delivery with multi-byte UTF-8 split across chunks", async () => {
  const message = { jsonrpc: "2.0" as const, method: "notifications/message", params: { text: "héllo wörld ✓ 𝄞 日本" } };
  const { messages } = await feed(cut(encoder.encode(line(message)), 1));
  assert.deepEqual(messages, [message]);
});

test("transport: CRLF line endings and blank lines are accepted", async () => {
  const text = `\r\n${JSON.stringify(ping(1))}\r\n\n   \n${JSON.stringify(ping(2))}\r\n`;
  const { messages, errors } = await feed(cut(encoder.encode(text), 3));
  assert.deepEqual(messages, [ping(1), ping(2)]);
  assert.deepEqual(errors, []);
});

test("transport: a garbage line is reported and the next valid line still arrives", async () => {
  const text = `not json at all\n{"no":"jsonrpc"}\n${line(ping(7))}`;
  const { messages, errors } = await feed([encoder.encode(text)]);
  assert.deepEqual(messages, [ping(7)]);
  assert.equal(errors.length, 2);
  assert.match(errors[0], /^Ignored a line that is not JSON: "not json at all"$/);
  assert.match(errors[1], /^Ignored a line that is not JSON-RPC 2\.0/);
});

test("transport: a 40 MB message in 64 KiB chunks arrives intact", async () => {
  const big = { jsonrpc: "2.0" as const, id: 1, result: { content: [{ type: "text", text: "y".repeat(40_000_000) }] } };
  const started = performance.now();
  const { messages, errors } = await feed([...cut(encoder.encode(line(big)), 65_536), encoder.encode(line(ping(2)))]);
  const ms = performance.now() - started;
  assert.deepEqual(errors, []);
  assert.equal(messages.length, 2);
  const result = (messages[0] as unknown as { result: { content: { text: string }[] } }).result;
  assert.equal(result.content[0].text.length, 40_000_000);
  assert.ok(ms < 10_000, `framing 40 MB took ${ms} ms`);
});

test("transport: a message over the limit is dropped with a clear error, the next one arrives", async () => {
  const big = line({ jsonrpc: "2.0", id: 1, result: { text: "z".repeat(2_000) } });
  const { messages, errors } = await feed([...cut(encoder.encode(big), 100), encoder.encode(line(ping(2)))], {
    maxMessageBytes: 1_000,
  });
  assert.deepEqual(messages, [ping(2)]);
  assert.deepEqual(errors, ["Message exceeds the limit of 1000 bytes and was dropped"]);
});

test("transport: send writes one JSON line; close closes the writable and calls onclose once", async () => {
  const written: string[] = [];
  let writableClosed = false;
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => void written.push(new TextDecoder().decode(chunk)),
    close: () => void (writableClosed = true),
  });
  const readable = new ReadableStream<Uint8Array>({ start() {} });
  const transport = new StreamTransport(readable, writable);
  let closes = 0;
  transport.onclose = () => closes++;
  await transport.start();
  await transport.send(ping(3));
  await transport.close();
  await transport.close();
  assert.deepEqual(written, [line(ping(3))]);
  assert.equal(writableClosed, true);
  assert.equal(closes, 1);
  await assert.rejects(transport.send(ping(4)), /Transport is closed/);
});

test("transport: the end of the readable closes the transport", async () => {
  const { messages } = await feed([encoder.encode(JSON.stringify(ping(1)))]);
  // An unterminated last line is not a message: the peer never finished it.
  assert.deepEqual(messages, []);
});
