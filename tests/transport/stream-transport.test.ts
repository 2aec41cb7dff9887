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

/** Resolves to "expired" once `ms` have passed, so that a hanging close fails instead of hanging. */
function expiry(ms: number): { expired: Promise<"expired">; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), ms)));
  return { expired, cancel: () => clearTimeout(timer) };
}

test("transport: close gives up on a peer that stopped reading, and still reports the close once", async () => {
  const stuck = new WritableStream<Uint8Array>({ write: () => new Promise(() => {}) });
  const transport = new StreamTransport(new ReadableStream({ start() {} }), stuck);
  let closes = 0;
  transport.onclose = () => closes++;
  await transport.start();
  void transport.send(ping(1)).catch(() => {});
  const limit = expiry(5_000);
  const outcome = await Promise.race([transport.close().then(() => "closed" as const), limit.expired]);
  limit.cancel();
  assert.equal(outcome, "closed", "close() returned although the peer never took the queued message");
  assert.equal(closes, 1);
  await assert.rejects(transport.send(ping(2)), /Transport is closed/);
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

const request = { jsonrpc: "2.0" as const, id: 1, method: "tools/call", params: {} };

/**
 * A peer that sends `messages` and ends its stream at once; `respond` may answer a request after
 * `respondAfterMs`. Returns what happened, in order, with the time from the start to the close.
 */
async function afterEof(messages: object[], drainMs: number, respondAfterMs?: number) {
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(messages.map(line).join("")));
      controller.close();
    },
  });
  const events: string[] = [];
  const writable = new WritableStream<Uint8Array>({ write: (chunk) => void events.push(`wrote ${new TextDecoder().decode(chunk).trim()}`) });
  const transport = new StreamTransport(readable, writable, { drainMs });
  const closed = new Promise<void>((resolve) => (transport.onclose = () => (events.push("closed"), resolve())));
  transport.onmessage = (message) => {
    events.push("method" in message ? `got ${message.method}` : "got response");
    if (respondAfterMs !== undefined && "id" in message && "method" in message) {
      setTimeout(() => void transport.send({ jsonrpc: "2.0", id: message.id, result: {} }), respondAfterMs);
    }
  };
  const started = performance.now();
  await transport.start();
  const limit = expiry(drainMs + 10_000);
  const outcome = await Promise.race([closed.then(() => "closed" as const), limit.expired]);
  limit.cancel();
  assert.equal(outcome, "closed", `the transport never closed: ${events}`);
  return { events, ms: performance.now() - started };
}

test("transport: after the peer's EOF, a request it cancelled is not waited for", async () => {
  const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } };
  const { events, ms } = await afterEof([request, cancel], 10_000);
  assert.deepEqual(events, ["got tools/call", "got notifications/cancelled", "closed"]);
  assert.ok(ms < 5_000, `closed after ${ms} ms, not at once: the 10 s drain was waited out`);
});

test("transport: after the peer's EOF, an unanswered request keeps it open until its answer is written", async () => {
  const { events, ms } = await afterEof([request], 10_000, 500);
  assert.deepEqual(events, ["got tools/call", `wrote ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })}`, "closed"]);
  assert.ok(ms >= 500 && ms < 5_000, `closed after ${ms} ms: expected at the answer (500 ms), long before the 10 s drain`);
});

test("transport: after the peer's EOF, an unanswered request keeps it open until the drain ends", async () => {
  const { events, ms } = await afterEof([request], 1_000);
  assert.deepEqual(events, ["got tools/call", "closed"]);
  assert.ok(ms >= 1_000, `closed after ${ms} ms, before the 1 s drain ended`);
});
