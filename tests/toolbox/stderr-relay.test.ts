import { test } from "node:test";
import assert from "node:assert/strict";
import { relayStderr, StderrTail } from "../../src/toolbox/stderr-relay.ts";
import { Redactor } from "../../src/remote/redact.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

test("stderr relay: every line is prefixed, lines split across chunks are joined, the last line is kept", async () => {
  let out = "";
  await relayStderr(streamOf("starting\nhalf of ", "a line\r\n\nno newline at the end"), "[dev/fs]", (text) => (out += text));
  assert.equal(out, "[dev/fs] starting\n[dev/fs] half of a line\n[dev/fs] no newline at the end\n");
});

test("stderr relay: a huge line is left out, saying so, and the next one still comes through", async () => {
  let out = "";
  await relayStderr(streamOf("x".repeat(100_000) + "\nafter\n"), "[a/b]", (text) => (out += text));
  assert.equal(out, "[a/b] (a line of 100000 bytes was left out)\n[a/b] after\n");
});

test("stderr tail: the last 3 non-blank lines without the prefix, at most 300 characters, latest kept", async () => {
  const tail = new StderrTail();
  await relayStderr(streamOf("one\n\n  two  \nthree\nError: Cannot find module '/x/server.js'\n"), "[a/b]", () => {}, tail);
  assert.equal(tail.text(), "two | three | Error: Cannot find module '/x/server.js'");
  assert.equal(tail.explain("server exited with code 1"), `server exited with code 1; its stderr ended with: ${tail.text()}`);
  const long = new StderrTail();
  long.push("a".repeat(200));
  long.push("b".repeat(200));
  assert.equal(long.text().length, 300);
  assert.equal(long.text(), `…${"a".repeat(96)} | ${"b".repeat(200)}`);
  assert.equal(new StderrTail().explain("timeout"), "timeout");
});

test("stderr relay: a stdio server's env values of 8 characters or more are masked in the lines and the tail", async () => {
  const redactor = Redactor.forEnv({ API_KEY: "sk-live-12345678", MODE: "debug", PORT: "8080" });
  const tail = new StderrTail();
  let out = "";
  await relayStderr(streamOf("key=sk-live-12345678 mode=debug port=8080\n"), "[a/b]", (text) => (out += text), tail, (line) => redactor.redact(line));
  assert.equal(out, "[a/b] key=*** mode=debug port=8080\n");
  assert.equal(tail.text(), "key=*** mode=debug port=8080");
});
