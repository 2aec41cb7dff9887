/**
 * StreamTransport's bounds on what waits for a peer (issue 33): past the bound on its requests in
 * flight it stops reading, and reads again once the answers written bring the count down to half;
 * a write backlog holds its gate from its high-water mark down to half of it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../helpers/sdk.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";

const encoder = new TextEncoder();

async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200 && !done(); turn++) await new Promise((resolve) => setTimeout(resolve, 5));
}

test("StreamTransport: with maxRequestsInFlight 4, only 4 of 10 requests are read until answers are written, then the rest", async () => {
  const lines = Array.from({ length: 10 }, (_, id) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }) + "\n").join("");
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(lines));
    },
  });
  const written: string[] = [];
  const writable = new WritableStream<Uint8Array>({ write: (chunk) => void written.push(new TextDecoder().decode(chunk)) });
  const transport = new StreamTransport(readable, writable, { maxRequestsInFlight: 4, answerInvalid: true });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void received.push(message);
  await transport.start();
  await until(() => received.length >= 4);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(received.length, 4, "read past the bound");
  // One answer leaves 3 in flight: over half of 4, still held.
  await transport.send({ jsonrpc: "2.0", id: 0, result: {} });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(received.length, 4, "read again above the lower mark");
  await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  await until(() => received.length >= 6);
  assert.equal(received.length, 6, "did not read again at half, or read past the bound");
  for (let id = 2; id < 10; id++) {
    await until(() => received.length > id);
    await transport.send({ jsonrpc: "2.0", id, result: {} });
  }
  await until(() => received.length === 10);
  assert.deepEqual(received.map((message) => (message as { id: number }).id), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(written.join("").split("\n").filter(Boolean).length, 10, "each request answered once");
  await transport.close();
});

test("StreamTransport: past the bound, a request of ours to the peer lets one more line be read, for its answer", async () => {
  const lines = [
    ...[0, 1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, method: "tools/call" })),
    { jsonrpc: "2.0", id: "q1", result: { action: "accept" } },
  ].map((message) => JSON.stringify(message) + "\n").join("");
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(lines));
    },
  });
  const transport = new StreamTransport(readable, new WritableStream<Uint8Array>(), { maxRequestsInFlight: 4, answerInvalid: true });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void received.push(message);
  await transport.start();
  await until(() => received.length >= 4);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(received.length, 4, "read past the bound");
  // A call now waits on the client (a server's elicitation): its answer must be read.
  await transport.send({ jsonrpc: "2.0", id: "q1", method: "elicitation/create", params: {} } as JSONRPCMessage);
  await until(() => received.length >= 5);
  assert.deepEqual(received[4], { jsonrpc: "2.0", id: "q1", result: { action: "accept" } });
  await transport.close();
});

test("StreamTransport: a backlog over its high-water mark holds the gate until it is down to half of it", async () => {
  const { FlowGate } = await import("../../src/transport/flow-gate.ts");
  const gate = new FlowGate();
  const waiting: (() => void)[] = [];
  const written: number[] = [];
  // Each write waits until the test lets it finish, as a client that does not read.
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve) => waiting.push(() => (written.push(chunk.length), resolve()))),
  });
  const BODY = 40 * 1024;
  // Four messages of 40 KiB (each written alone); the mark at two and a half of them.
  const transport = new StreamTransport(new ReadableStream<Uint8Array>(), writable, { backlog: { gate, highWaterMark: BODY * 2.5 } });
  const message = (index: number) => ({ jsonrpc: "2.0", method: "notifications/message", params: { index, data: "x".repeat(BODY) } }) as JSONRPCMessage;
  const sent = [0, 1, 2, 3].map((index) => transport.send(message(index)));
  assert.equal(gate.held, true, "held over the mark");
  const heldAfterBody: boolean[] = [];
  for (let turn = 0; turn < 20 && heldAfterBody.length < 4; turn++) {
    await until(() => waiting.length > 0);
    waiting.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (written.at(-1)! > BODY) heldAfterBody.push(gate.held);
  }
  // Three left (over the mark), two left (under it, over half), one left (under half), none.
  assert.deepEqual(heldAfterBody, [true, true, false, false]);
  for (let turn = 0; turn < 20 && waiting.length > 0; turn++) {
    waiting.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(sent);
  await transport.close();
});

test("StreamTransport: a request of ours that we cancel is owed no answer, so it no longer raises the bound", async () => {
  const lines = Array.from({ length: 6 }, (_, id) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }) + "\n").join("");
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (controller) => void (feed = controller) });
  const transport = new StreamTransport(readable, new WritableStream<Uint8Array>(), { maxRequestsInFlight: 2, answerInvalid: true });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void received.push(message);
  await transport.start();
  // Three questions to the peer, each then cancelled (a call given up): MCP says no answer comes.
  for (const id of ["q1", "q2", "q3"]) {
    await transport.send({ jsonrpc: "2.0", id, method: "elicitation/create", params: {} });
    await transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
  }
  feed.enqueue(encoder.encode(lines));
  await until(() => received.length >= 2);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(received.length, 2, "the cancelled requests still raised the bound");
  await transport.close();
});
