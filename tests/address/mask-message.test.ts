/** A server's secrets masked in a message it sent (src/address/mask-message.ts), parsed or still raw bytes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { maskMessage } from "../../src/address/mask-message.ts";
import { Redactor } from "../../src/address/redact.ts";
import { lazyJsonObject, plainJson, rawJsonOf } from "../../src/transport/raw-json.ts";

const SECRET = "sk-12345678";
const redactor = new Redactor([SECRET, 'q"uo\\te']);
const raw = (value: unknown) => lazyJsonObject([new TextEncoder().encode(JSON.stringify(value))]);

test("mask: every string and key of a parsed message, at any depth; other values as they are", () => {
  const message = {
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: [`key ${SECRET}`, 7, null, true, { [SECRET]: { deeper: [SECRET] } }], note: 'say q"uo\\te' },
  };
  maskMessage(message, redactor);
  assert.deepEqual(message, {
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: ["key ***", 7, null, true, { "***": { deeper: ["***"] } }], note: "say ***" },
  });
});

test("mask: a raw result gets new bytes only when a secret is in them, as written or JSON-escaped", () => {
  const clean = { jsonrpc: "2.0", id: 1, result: raw({ content: [{ type: "text", text: "nothing here" }] }) };
  const before = clean.result;
  maskMessage(clean, redactor);
  assert.equal(clean.result, before, "untouched: the same raw object");
  assert.ok(rawJsonOf(clean.result));

  const leaky = { jsonrpc: "2.0", id: 2, result: raw({ content: [{ type: "text", text: `a ${SECRET} and q"uo\\te` }] }) };
  maskMessage(leaky, redactor);
  assert.ok(rawJsonOf(leaky.result), "still raw: passed on as bytes");
  assert.deepEqual(plainJson(leaky.result), { content: [{ type: "text", text: "a *** and ***" }] });
});

test("mask: no secret configured is a flag test: nothing is looked at", () => {
  const trap = new Proxy({}, { ownKeys: () => assert.fail("looked into") });
  maskMessage({ result: trap }, new Redactor([]));
  maskMessage({ result: trap }, new Redactor(["ab"])); // Shorter than any secret: none.
});

test('mask: a key "__proto__" stays an own key; a masked key keeps its value', () => {
  const message = JSON.parse(`{"__proto__": "${SECRET}", "${SECRET}x": 1}`);
  maskMessage(message, redactor);
  assert.equal(Object.getPrototypeOf(message), Object.prototype);
  assert.deepEqual(Object.entries(message), [["__proto__", "***"], ["***x", 1]]);
});

test("redactJson: a secret with quotes, backslashes or controls is found as JSON writes it too", () => {
  const tricky = new Redactor(['a"b\\c\nd-long']);
  const text = JSON.stringify({ said: 'a"b\\c\nd-long' });
  assert.equal(tricky.redactJson(text), '{"said":"***"}');
  assert.equal(tricky.empty, false);
  assert.equal(new Redactor([]).empty, true);
});

test("mask: a raw result keeps the server's bytes around each mask; non-ASCII text and many secrets are encoded anew", () => {
  const overlapping = new Redactor(["bcdef-long", "abc-x"]);
  for (const text of [`ab bcdef-long abc-x z`, `é ${SECRET} ü`, Array.from({ length: 300 }, () => SECRET).join(" "), "abcdef-long"]) {
    const message = { result: raw({ text }) };
    maskMessage(message, text.startsWith("ab") ? overlapping : redactor);
    const expected = text.startsWith("ab") ? overlapping.redact(text) : redactor.redact(text);
    assert.deepEqual(plainJson(message.result), { text: expected });
  }
  const pieces = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    return lazyJsonObject([bytes.subarray(0, 9), bytes.subarray(9, 15), bytes.subarray(15)]);
  };
  const split = { result: pieces(JSON.stringify({ a: `x${SECRET}y${SECRET}` })) };
  maskMessage(split, redactor);
  assert.deepEqual(plainJson(split.result), { a: "x***y***" }, "a secret across pieces");
});

test("mask: a secret split across a result's text items is masked, a piece in each; raw, the result is parsed only then", () => {
  const parts = (...texts: string[]) => ({ content: texts.map((text) => ({ type: "text", text })) });
  const cases: [string[], string[]][] = [
    [["key: sk-1234", "5678 end"], ["key: ***", "*** end"]],
    [["sk-", "1234", "5678"], ["***", "***", "***"]],
    [[`a ${SECRET} b sk-12`, "345678"], ["a *** b ***", "***"]],
    [["sk-1234", "nothing", "5678"], ["sk-1234", "nothing", "5678"]],
    [["nothing", "here"], ["nothing", "here"]],
  ];
  for (const [texts, masked] of cases) {
    const parsed = { jsonrpc: "2.0", id: 1, result: parts(...texts) };
    maskMessage(parsed, redactor);
    assert.deepEqual(parsed.result, parts(...masked), texts.join(" | "));
    const rawMessage = { jsonrpc: "2.0", id: 1, result: raw(parts(...texts)) };
    const before = rawMessage.result;
    maskMessage(rawMessage, redactor);
    assert.deepEqual(plainJson(rawMessage.result), parts(...masked), `raw: ${texts.join(" | ")}`);
    if (texts.join("") === masked.join("")) assert.equal(rawMessage.result, before, "nothing to mask: the same raw object");
  }
  // An image between two texts does not keep them apart; a quote in a text is no boundary.
  const between = { result: { content: [{ type: "text", text: 'say "sk-1234' }, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "text", text: '5678" ok' }] } };
  maskMessage(between, redactor);
  assert.deepEqual(between.result.content.map((item) => item.text), ['say "***', undefined, '***" ok']);
  const rawBetween = { result: raw({ content: [{ type: "text", text: 'x \\"sk-1234' }, { type: "text", text: '5678' }] }) };
  maskMessage(rawBetween, redactor);
  assert.deepEqual(plainJson(rawBetween.result), { content: [{ type: "text", text: 'x \\"***' }, { type: "text", text: "***" }] });
});
