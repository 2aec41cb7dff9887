import { test } from "node:test";
import assert from "node:assert/strict";
import { scanJson } from "../../src/transport/json-scan.ts";

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What JSON.parse says of the bytes (invalid UTF-8 counts as not JSON: it would not pass through unchanged). */
function parses(bytes: Uint8Array): boolean {
  try {
    JSON.parse(strictDecoder.decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** The bytes cut in two at `at`, each piece a view at an odd offset of a larger buffer (as pipes give). */
function splitAt(bytes: Uint8Array, at: number): Uint8Array[] {
  const view = (part: Uint8Array) => {
    const buffer = new Uint8Array(part.length + 3);
    buffer.set(part, 1);
    return buffer.subarray(1, 1 + part.length);
  };
  return [view(bytes.subarray(0, at)), view(bytes.subarray(at))];
}

const VALID = [
  '{"jsonrpc":"2.0","id":1,"result":{}}',
  ' { "a" : [ 1 , -0.5e+3 , 0 , 2E-2 , true , false , null , "x\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9" ] } ',
  '"héllo ✓ 𝄞"',
  "0",
  "-12",
  "[]",
  "[[[]]]",
  '{"":{}}',
  "\t\r\n1\n",
];

const INVALID = [
  "",
  " ",
  "{",
  "}",
  '{"a":1,}',
  "[1,]",
  "[1 2]",
  '{"a" 1}',
  '{a:1}',
  "01",
  "-",
  "1.",
  ".5",
  "1e",
  "1e+",
  "+1",
  "tru",
  "nul",
  "truth",
  '"unterminated',
  '"bad \\x escape"',
  '"\\u12g4"',
  '"tab\tinside"',
  "NaN",
  '{"a":1}{"b":2}',
  "[1]]",
  '{"a":1]',
  "\ufeff{}",
];

test("json-scan: agrees with JSON.parse on valid and invalid texts, split at every byte", () => {
  for (const text of [...VALID, ...INVALID]) {
    const bytes = encoder.encode(text);
    const expected = parses(bytes);
    assert.equal(scanJson([bytes], 1_000).ok, expected, `whole: ${JSON.stringify(text)}`);
    for (let at = 0; at <= bytes.length; at++) {
      assert.equal(scanJson(splitAt(bytes, at), 1_000).ok, expected, `split at ${at}: ${JSON.stringify(text)}`);
    }
  }
});

test("json-scan: refuses invalid UTF-8 that a lenient decoder would have replaced", () => {
  const cases = [
    [0x22, 0xc3, 0x22], // lead byte without its continuation
    [0x22, 0x80, 0x22], // continuation without a lead
    [0x22, 0xc0, 0xaf, 0x22], // overlong
    [0x22, 0xe0, 0x80, 0xaf, 0x22], // overlong, three bytes
    [0x22, 0xed, 0xa0, 0x80, 0x22], // a surrogate
    [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
    [0x22, 0xff, 0x22],
  ];
  for (const bytes of cases) assert.equal(scanJson([new Uint8Array(bytes)], 10).ok, false, `bytes ${bytes}`);
  assert.equal(scanJson([new Uint8Array([0x22, 0xf0, 0x9d, 0x84, 0x9e, 0x22])], 10).ok, true);
});

test("json-scan: long strings are read a word at a time and still stop at every special byte", () => {
  // Skipped, the backslash would let its quote end the string.
  const specials = ['"', '\\"', "\u0001", "é"];
  for (const special of specials) {
    for (let at = 60; at < 68; at++) {
      const inner = "a".repeat(at) + special + "b".repeat(70);
      const text = `{"k":"${inner}"}`;
      const bytes = encoder.encode(text);
      for (const offset of [0, 1, 2, 3]) {
        const buffer = new Uint8Array(bytes.length + offset);
        buffer.set(bytes, offset);
        const pieces = [buffer.subarray(offset)];
        assert.equal(scanJson(pieces, 10).ok, parses(bytes), `${JSON.stringify(special)} at ${at}, offset ${offset}`);
      }
    }
  }
});

test("json-scan: finds the byte ranges of the top-level members, whatever the spacing and order", () => {
  const text = ' { "result" : {"content":[{"text":"a}b"}]} , "id":"wb-1","jsonrpc":"2.0", "n": -1.5e3 } ';
  const bytes = encoder.encode(text);
  for (let at = 0; at <= bytes.length; at++) {
    const scan = scanJson(splitAt(bytes, at), 1_000);
    assert.ok(scan.ok);
    const found = scan.members.map((member) => [member.key, text.slice(member.start, member.end)]);
    assert.deepEqual(found, [
      ["result", '{"content":[{"text":"a}b"}]}'],
      ["id", '"wb-1"'],
      ["jsonrpc", '"2.0"'],
      ["n", "-1.5e3"],
    ], `split at ${at}`);
  }
  const escaped = scanJson([encoder.encode('{"re\\u0073ult":1}')], 10);
  assert.ok(escaped.ok);
  assert.equal(escaped.members[0].key, "result");
  const array = scanJson([encoder.encode('[{"a":1}]')], 10);
  assert.deepEqual(array, { ok: true, members: [] });
});

test("json-scan: nesting deeper than the limit is refused as too deep", () => {
  const nested = (levels: number) => encoder.encode("[".repeat(levels) + "]".repeat(levels));
  assert.deepEqual(scanJson([nested(10)], 10), { ok: true, members: [] });
  assert.deepEqual(scanJson([nested(11)], 10), { ok: false, tooDeep: true });
  assert.deepEqual(scanJson([encoder.encode('{"a":{"b":{}}}')], 2), { ok: false, tooDeep: true });
});

test("json-scan: agrees with JSON.parse on random changes to a message", () => {
  const sample = encoder.encode(
    '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a\\nb é ✓"}],"isError":false,"n":[0,-1.5,2e3,null,true]}}',
  );
  const alphabet = encoder.encode('{}[],:"\\ 0123456789-+.eEtrufalsn\t\u00ff');
  let seed = 15;
  const random = (below: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % below;
  for (let round = 0; round < 3_000; round++) {
    const bytes = sample.slice();
    const changes = 1 + random(3);
    for (let change = 0; change < changes; change++) bytes[random(bytes.length)] = alphabet[random(alphabet.length)];
    const cut = random(bytes.length + 1);
    assert.equal(scanJson(splitAt(bytes, cut), 1_000).ok, parses(bytes), new TextDecoder().decode(bytes));
  }
});
