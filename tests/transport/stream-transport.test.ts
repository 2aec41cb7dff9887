import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, type JSONRPCMessage } from "../helpers/sdk.ts";
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
  let written = "";
  const writable = new WritableStream<Uint8Array>({ write: (chunk) => void (written += new TextDecoder().decode(chunk)) });
  const transport = new StreamTransport(readable, writable, options);
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();
  await closed;
  return { messages, errors, written };
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
  assert.equal(errors[1], 'Refused a message (16 bytes): Invalid Request: jsonrpc must be "2.0"');
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

test("transport: a request over the limit is answered with an error for its id; the next message arrives", async () => {
  const big = line({ jsonrpc: "2.0", method: "tools/call", params: { text: "z".repeat(2_000) }, id: 1 });
  const { messages, errors, written } = await feed([...cut(encoder.encode(big), 100), encoder.encode(line(ping(2)))], {
    maxMessageBytes: 1_000,
  });
  const message = `Message of ${big.length - 1} bytes exceeds the limit of 1000 bytes`;
  assert.deepEqual(messages, [ping(2)]);
  assert.deepEqual(errors, [`${message} and was dropped`]);
  assert.equal(written, line({ jsonrpc: "2.0", id: 1, error: { code: -32600, message } }));
});

test("transport: an ignored line is quoted, or only measured when the option says so", async () => {
  const quoted = await feed([encoder.encode("token=abc123 oops\n")]);
  assert.deepEqual(quoted.errors, ['Ignored a line that is not JSON: "token=abc123 oops"']);
  const measured = await feed([encoder.encode("token=abc123 oops\n")], { quoteIgnoredLines: false });
  assert.deepEqual(measured.errors, ["Ignored a line that is not JSON: 17 bytes"]);
});

test("transport: close gives up on a peer that stopped reading", async () => {
  const stuck = new WritableStream<Uint8Array>({ write: () => new Promise(() => {}) });
  const transport = new StreamTransport(new ReadableStream({ start() {} }), stuck);
  await transport.start();
  void transport.send(ping(1)).catch(() => {});
  const started = performance.now();
  await transport.close();
  assert.ok(performance.now() - started < 3_000);
});

test("transport: a response over the limit becomes an error response for its id (id last or first)", async () => {
  const idLast = line({ result: { text: "z".repeat(5_000) }, jsonrpc: "2.0", id: 41 });
  const idFirst = line({ jsonrpc: "2.0", id: "req-42", result: { text: "z".repeat(5_000) } });
  const { messages, errors } = await feed(cut(encoder.encode(idLast + idFirst + line(ping(3))), 333), {
    maxMessageBytes: 1_000,
  });
  const error = (id: number | string, bytes: number) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32600, message: `Message of ${bytes} bytes exceeds the limit of 1000 bytes` },
  });
  assert.deepEqual(messages, [error(41, idLast.length - 1), error("req-42", idFirst.length - 1), ping(3)]);
  assert.equal(errors.length, 2);
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

test("transport: progress read in the same chunk as its response still reaches the SDK's handler", async () => {
  let peer!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (controller) => void (peer = controller) });
  const sent: Record<string, any>[] = [];
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      const message = JSON.parse(new TextDecoder().decode(chunk));
      sent.push(message);
      if (message.method === "initialize") {
        peer.enqueue(encoder.encode(line({
          jsonrpc: "2.0",
          id: message.id,
          result: { protocolVersion: message.params.protocolVersion, capabilities: {}, serverInfo: { name: "peer", version: "1" } },
        })));
      }
      if (message.method === "tools/call") {
        const token = message.params._meta.progressToken;
        const progress = (n: number) => line({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: n } });
        // Both progress notifications and the response in one chunk, as a fast server's writes often arrive.
        peer.enqueue(encoder.encode(progress(1) + progress(2) + line({ jsonrpc: "2.0", id: message.id, result: { content: [] } })));
      }
    },
  });
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamTransport(readable, writable));
  const seen: number[] = [];
  await client.callTool({ name: "x", arguments: {} }, undefined, { onprogress: (p) => seen.push(p.progress) });
  assert.deepEqual(seen, [1, 2]);
  await client.close();
});

test("transport: after the peer's EOF, a request it cancelled is not waited for", async () => {
  const text = line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }) +
    line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
  const started = performance.now();
  await feed([encoder.encode(text)], { drainMs: 5_000 });
  assert.ok(performance.now() - started < 1_000, "closed without waiting out the drain");
});

test("transport: after the peer's EOF, an unanswered request keeps it open until answered or the drain ends", async () => {
  const started = performance.now();
  await feed([encoder.encode(line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {} }))], { drainMs: 300 });
  const waited = performance.now() - started;
  assert.ok(waited >= 250 && waited < 2_000, `waited ${waited} ms`);
});
