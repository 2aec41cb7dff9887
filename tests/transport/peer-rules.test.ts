/** The transport's answers to a peer that breaks the rules, and its backpressure, over in-memory streams. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../helpers/sdk.ts";
import { RefusedMessage, StreamTransport, type StreamTransportOptions } from "../../src/transport/stream-transport.ts";
import { FlowGate } from "../../src/transport/flow-gate.ts";

const encoder = new TextEncoder();
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A transport whose peer writes lines when the test says and reads what the transport writes. */
function peer(options: StreamTransportOptions = {}, writable?: WritableStream<Uint8Array>) {
  let input!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (controller) => void (input = controller) });
  const written: unknown[] = [];
  const sink = writable ?? new WritableStream<Uint8Array>({
    write: (chunk) => {
      for (const line of new TextDecoder().decode(chunk).split("\n")) if (line) written.push(JSON.parse(line));
    },
  });
  const transport = new StreamTransport(readable, sink, options);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => closed++;
  return {
    transport,
    messages,
    errors,
    written,
    closed: () => closed,
    async say(...lines: string[]) {
      input.enqueue(encoder.encode(lines.map((line) => `${line}\n`).join("")));
      for (let i = 0; i < 5; i++) await tick();
    },
    end: () => input.close(),
  };
}

const call = (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"t"}}`;

test("peer rules: with answerInvalid, what JSON-RPC answers is answered, and nothing reaches the handler", async () => {
  const p = peer({ answerInvalid: true });
  await p.transport.start();
  const badId = '{"jsonrpc":"2.0","id":true,"method":"ping"}';
  const badParams = '{"jsonrpc":"2.0","method":"notifications/x","params":1}';
  await p.say("{", badId, badParams);
  assert.deepEqual(p.messages, []);
  assert.deepEqual(p.written, [
    { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not valid JSON" } },
    { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: id must be a string or a safe integer" } },
  ]);
  assert.deepEqual(p.errors.map((error) => error.message), [
    "Ignored a line that is not JSON: \"{\"",
    `Refused a message (method "ping", ${badId.length} bytes): Invalid Request: id must be a string or a safe integer`,
    `Refused a message (method "notifications/x", ${badParams.length} bytes): Invalid params: params must be an object`,
  ]);
});

test("peer rules: without answerInvalid (a server's side) nothing is answered, only reported", async () => {
  const p = peer();
  await p.transport.start();
  await p.say("not json", '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', '{"jsonrpc":"2.0","id":"wb-9","result":{}}');
  assert.deepEqual(p.written, []);
  assert.equal(p.errors.length, 2);
  // A response to a request this side never made still reaches the SDK, as before.
  assert.deepEqual(p.messages, [{ jsonrpc: "2.0", id: "wb-9", result: {} }]);
});

test("peer rules: a request whose id is in flight is refused with id null until the first is answered or cancelled", async () => {
  const p = peer({ answerInvalid: true });
  await p.transport.start();
  await p.say(call(7), call(7));
  assert.equal(p.messages.length, 1);
  assert.deepEqual(p.written, [
    { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: id 7 is already in use by a request in flight" } },
  ]);
  await p.transport.send({ jsonrpc: "2.0", id: 7, result: {} });
  await p.say(call(7));
  assert.equal(p.messages.length, 2);
  await p.say('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}', call(7));
  assert.equal(p.messages.length, 4);
  // A bad request reusing an id in flight is not answered with that id either.
  await p.say('{"jsonrpc":"2.0","id":7,"method":"ping","params":5}');
  assert.deepEqual(p.written.at(-1), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "Invalid Request: id 7 is already in use by a request in flight" },
  });
});

test("peer rules: a response to no request of ours is dropped; one to our request is delivered", async () => {
  const p = peer({ answerInvalid: true });
  await p.transport.start();
  await p.transport.send({ jsonrpc: "2.0", id: 3, method: "ping" });
  await p.say('{"jsonrpc":"2.0","id":4,"result":{"secret":"s"}}', '{"jsonrpc":"2.0","id":3,"result":{}}');
  assert.deepEqual(p.messages, [{ jsonrpc: "2.0", id: 3, result: {} }]);
  assert.deepEqual(p.errors.map((error) => error.message), [
    "Refused a message (id 4, 48 bytes): Invalid Request: a response to no request of ours",
  ]);
});

test("peer rules: a message too deep is refused and marked as such, and the next one arrives", async () => {
  const p = peer({ answerInvalid: true });
  await p.transport.start();
  const deep = "[".repeat(5_000) + "]".repeat(5_000);
  await p.say(`{"jsonrpc":"2.0","id":"r","method":"x","params":{"a":${deep}}}`, '{"jsonrpc":"2.0","id":2,"method":"ping"}');
  assert.deepEqual(p.messages, [{ jsonrpc: "2.0", id: 2, method: "ping" }]);
  assert.deepEqual(p.written, [
    { jsonrpc: "2.0", id: "r", error: { code: -32600, message: "Invalid Request: nested deeper than 1000 levels" } },
  ]);
  assert.ok(p.errors[0] instanceof RefusedMessage && p.errors[0].tooDeep);
});

test("peer rules: a backlog over the high-water mark holds the gate, and held gates pause reading", async () => {
  const gate = new FlowGate();
  let release!: () => void;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  const writes: number[] = [];
  const slow = new WritableStream<Uint8Array>({
    async write(chunk) {
      writes.push(chunk.length);
      await stalled;
    },
  }, { highWaterMark: 1 });
  const p = peer({ backlog: { gate, highWaterMark: 100 }, readGate: gate }, slow);
  await p.transport.start();
  const sent = [1, 2, 3].map((id) => p.transport.send({ jsonrpc: "2.0", id, result: { text: "x".repeat(60) } }));
  assert.equal(gate.held, true);
  await p.say('{"jsonrpc":"2.0","method":"notifications/a"}');
  assert.deepEqual(p.messages, [], "reading waits while the gate is held");
  release();
  await Promise.all(sent);
  assert.equal(gate.held, false);
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(p.messages, [{ jsonrpc: "2.0", method: "notifications/a" }]);
});

test("peer rules: a write that fails is reported once and closes the transport", async () => {
  const broken = new WritableStream<Uint8Array>({ write: () => Promise.reject(new Error("Broken pipe")) });
  const p = peer({}, broken);
  await p.transport.start();
  const results = await Promise.allSettled([1, 2, 3].map((id) => p.transport.send({ jsonrpc: "2.0", id, result: {} })));
  for (let i = 0; i < 5; i++) await tick();
  assert.ok(results.every((result) => result.status === "rejected"));
  assert.deepEqual(p.errors.map((error) => error.message), ["Write failed: Broken pipe"]);
  assert.equal(p.closed(), 1);
});
