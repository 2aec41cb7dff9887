import { test } from "node:test";
import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../helpers/sdk.ts";
import { RAW_FROM_BYTES, StreamTransport } from "../../src/transport/stream-transport.ts";
import { lazyJsonObject, rawIncludes, rawJsonOf, unreadResult } from "../../src/transport/raw-json.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A server's side: the given text arrives in 64 KiB chunks; what `claim` keeps and what the SDK gets are collected. */
async function receive(text: string, claimIds: (string | number)[] = []) {
  const bytes = encoder.encode(text);
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 65_536) controller.enqueue(bytes.slice(at, at + 65_536));
      controller.close();
    },
  });
  const transport = new StreamTransport(readable, new WritableStream());
  const claimed: JSONRPCMessage[] = [];
  const delivered: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  transport.claim = (message) => "id" in message && claimIds.includes(message.id as string | number) && claimed.push(message) > 0;
  transport.onmessage = (message) => delivered.push(message);
  transport.onerror = (error) => errors.push(error);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.start();
  await closed;
  return { claimed, delivered, errors };
}

/** A client's side: the text our transport writes for `message`, and the size of each write. */
async function writes(message: JSONRPCMessage): Promise<{ text: string; sizes: number[] }> {
  const chunks: Uint8Array[] = [];
  const transport = new StreamTransport(new ReadableStream(), new WritableStream({ write: (chunk) => void chunks.push(chunk.slice()) }));
  await transport.send(message);
  return { text: chunks.map((chunk) => decoder.decode(chunk)).join(""), sizes: chunks.map((chunk) => chunk.length) };
}

const written = async (message: JSONRPCMessage) => (await writes(message)).text;

/** A result over the raw threshold, spaced and ordered as no JSON.stringify would write it. */
const bigResultText = () =>
  `{ "isError" : false, "content" : [ { "type":"text", "text":"${"z".repeat(RAW_FROM_BYTES)}\\u00e9" } ] }`;

type Result = { content: { text: string }[]; isError: boolean };

test("raw relay: a long response's result reaches the client as the server's own bytes", async () => {
  const result = bigResultText();
  const { claimed, errors } = await receive(`{"result": ${result}, "id":"wb-3", "jsonrpc":"2.0"}\r\n`, ["wb-3"]);
  assert.deepEqual(errors, []);
  assert.equal(claimed.length, 1);
  const claimedResult = (claimed[0] as { result: unknown }).result;
  assert.ok(rawJsonOf(claimedResult), "the result is still raw");
  const { text, sizes } = await writes({ jsonrpc: "2.0", id: 12, result: claimedResult } as JSONRPCMessage);
  assert.equal(text, `{"jsonrpc":"2.0","id":12,"result":${result}}\n`);
  // The server's 64 KiB chunks go out as they came: joined, they would be a copy of the result.
  assert.ok(Math.max(...sizes) <= 65_536, `writes of ${Math.max(...sizes)} bytes`);
  assert.deepEqual(JSON.parse(text).result, JSON.parse(result));
});

test("raw relay: a raw result read or changed is an ordinary value, and is sent as it is now", async () => {
  const { claimed } = await receive(`{"jsonrpc":"2.0","id":"wb-1","result":${bigResultText()}}\n`, ["wb-1"]);
  const result = (claimed[0] as unknown as { result: Result }).result;
  assert.equal(await Promise.resolve(result), result, "a promise resolved with it does not open it");
  assert.ok(rawJsonOf(result));
  assert.equal(result.isError, false);
  assert.equal(result.content[0].text.length, RAW_FROM_BYTES + 1);
  assert.equal(rawJsonOf(result), undefined, "once read, its bytes are let go");
  result.content[0].text = "changed";
  result.isError = true;
  assert.deepEqual(Object.keys(result), ["isError", "content"]);
  const text = await written({ jsonrpc: "2.0", id: 1, result } as unknown as JSONRPCMessage);
  assert.equal(text, `{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"changed"}]}}\n`);
});

test("raw relay: a long response nobody claims reaches the SDK parsed", async () => {
  const { delivered, claimed } = await receive(`{"jsonrpc":"2.0","id":4,"result":${bigResultText()}}\n`);
  assert.equal(claimed.length, 0);
  assert.equal(delivered.length, 1);
  const result = (delivered[0] as unknown as { result: Result }).result;
  assert.equal(rawJsonOf(result), undefined);
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(result.content[0].text.length, RAW_FROM_BYTES + 1);
});

test("raw relay: long messages of any other shape are parsed and checked as before", async () => {
  const filler = "q".repeat(RAW_FROM_BYTES);
  const lines = [
    `{"jsonrpc":"2.0","id":"wb-1","result":{"text":"${filler}"},"extra":1}`, // a member more: parsed
    `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${filler}"}}`,
    `{"jsonrpc":"2.0","id":"wb-2","result":{"text":"${filler}"}`, // not JSON
    `{"jsonrpc":"2.0","id":"wb-3","result":{"text":"${filler}","deep":${"[".repeat(1_001)}${"]".repeat(1_001)}}}`,
    `{"jsonrpc":"1.0","id":"wb-4","result":{"text":"${filler}"}}`,
    ` \t${" ".repeat(RAW_FROM_BYTES)}\r`, // blank: skipped without a word
  ];
  const { claimed, delivered, errors } = await receive(lines.join("\n") + "\n", ["wb-1", "wb-2", "wb-3", "wb-4"]);
  assert.equal(claimed.length, 1);
  assert.equal(rawJsonOf((claimed[0] as { result: unknown }).result), undefined);
  assert.equal(delivered.length, 1);
  assert.equal((delivered[0] as { method?: string }).method, "notifications/message");
  assert.equal(errors.length, 3);
  assert.match(errors[0].message, /^Ignored a line that is not JSON: /);
  assert.match(errors[1].message, /^Refused a message \(id "wb-3", \d+ bytes\): Invalid Request: nested deeper than 1000 levels$/);
  assert.equal((errors[1] as { tooDeep?: boolean }).tooDeep, true);
  assert.match(errors[2].message, /^Refused a message \(id "wb-4", \d+ bytes\): Invalid Request: jsonrpc must be "2\.0"$/);
});

test("raw relay: a span looks at a raw result without parsing it, unless its bytes name isError", () => {
  const bytes = (text: string) => [new TextEncoder().encode(text)];
  const plain = lazyJsonObject(bytes('{"content":[{"type":"text","text":"isError: true"}]}'));
  assert.equal(unreadResult(plain), undefined);
  assert.ok(rawJsonOf(plain), "still the server's bytes");
  const failed = lazyJsonObject(bytes('{"content":[],"isError":true}'));
  assert.equal((unreadResult(failed) as { isError?: boolean }).isError, true);
  const parsed = { content: [], isError: true };
  assert.equal(unreadResult(parsed), parsed);
});

test("raw relay: a word is found in a raw value's bytes wherever it is, and only where it is", () => {
  // Every word the workbench looks for, in texts made of its own pieces and JSON's usual bytes, cut in
  // two anywhere: the same answer as a plain search of the whole text (a seeded generator, 4,000 texts).
  const words = ['"isError"', '"isError":true', '"resultType"', '"input_required"'];
  const parts = ['"', ":", ",", "{", "}", "[", "]", " ", "is", "Error", "E", "_", "input", "required", "result", "Type", "true", "x"];
  let seed = 50;
  const next = (below: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % below;
  const encode = (text: string) => new TextEncoder().encode(text);
  for (let round = 0; round < 4000; round++) {
    const word = words[round % words.length]!;
    let text = "";
    const length = 1 + next(30);
    for (let index = 0; index < length; index++) text += next(12) === 0 ? word.slice(next(word.length)) : parts[next(parts.length)];
    const cut = word.length + next(Math.max(1, text.length - 2 * word.length + 1));
    const pieces = cut < text.length - word.length ? [encode(text.slice(0, cut)), encode(text.slice(cut))] : [encode(text)];
    assert.equal(rawIncludes(lazyJsonObject(pieces), word), text.includes(word), `${word} in ${JSON.stringify(text)} cut at ${cut}`);
  }
  assert.equal(rawIncludes({ isError: true }, '"isError"'), undefined, "a parsed value is not looked into here");
});
