/** The protobuf writer, read back by the tests' own wire reader: varints at their edges, negative int64, fixed and packed values, nested messages of every length. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ProtoWriter } from "../../src/telemetry/protobuf-writer.ts";
import { readFields } from "../helpers/otlp-decode.ts";

test("protobuf: varints at each byte boundary, up to 2^53", () => {
  const values = [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER];
  const writer = new ProtoWriter(4);
  values.forEach((value, index) => writer.uint(index + 1, value));
  const fields = readFields(writer.finish());
  values.forEach((value, index) => assert.equal(fields.get(index + 1)![0], BigInt(value), String(value)));
  assert.deepEqual([...new ProtoWriter().uint(1, 300).finish()], [0x08, 0xac, 0x02], "the wire bytes of the protobuf guide's example");
});

test("protobuf: a negative int64 is its two's complement in ten bytes", () => {
  const bytes = new ProtoWriter().int64(3, -1).finish();
  assert.equal(bytes.length, 11);
  assert.equal(BigInt.asIntN(64, readFields(bytes).get(3)![0] as bigint), -1n);
  assert.equal(BigInt.asIntN(64, readFields(new ProtoWriter().int64(3, -(2 ** 40)).finish()).get(3)![0] as bigint), -(2n ** 40n));
});

test("protobuf: fixed32, fixed64, doubles, packed values and hex bytes", () => {
  const writer = new ProtoWriter(8);
  writer.fixed32(1, 0x301).fixed64(2, 1_796_175_651_171_221_000n).double(3, 0.1);
  writer.packedFixed64(4, [1, 2, 3]).packedDouble(5, [0.01, 300]).hexBytes(6, "00f067aa0ba902b7");
  const fields = readFields(writer.finish());
  assert.equal(fields.get(1)![0], 0x301n);
  assert.equal(fields.get(2)![0], 1_796_175_651_171_221_000n);
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, fields.get(3)![0] as bigint, true);
  assert.equal(view.getFloat64(0, true), 0.1);
  assert.equal((fields.get(4)![0] as Uint8Array).length, 24);
  assert.equal((fields.get(5)![0] as Uint8Array).length, 16);
  assert.deepEqual([...(fields.get(6)![0] as Uint8Array)], [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]);
});

test("protobuf: strings in UTF-8 and nested messages whose length takes one, two and three bytes", () => {
  for (const length of [0, 1, 127, 128, 16_383, 16_384, 100_000]) {
    const text = "é𝄞x".repeat(Math.ceil(length / 4)).slice(0, length);
    const writer = new ProtoWriter(16);
    const outer = writer.fork(1);
    const inner = writer.fork(2);
    writer.string(3, text).uint(4, 9);
    writer.join(inner);
    writer.join(outer);
    writer.uint(5, 1);
    const top = readFields(writer.finish());
    const middle = readFields(top.get(1)![0] as Uint8Array);
    const bottom = readFields(middle.get(2)![0] as Uint8Array);
    assert.equal(new TextDecoder().decode(bottom.get(3)![0] as Uint8Array), text, `length ${length}`);
    assert.equal(bottom.get(4)![0], 9n);
    assert.equal(top.get(5)![0], 1n, "what follows a long message is read where it is");
  }
});

test("protobuf: a writer used again writes each message as a new one would, keys written once or many times alike", () => {
  const message = (writer: ProtoWriter, text: string) => {
    const start = writer.fork(9);
    writer.key("gen_ai.tool.name").string(2, text);
    writer.join(start);
    return writer.key("mcp.method.name").key("gen_ai.tool.name").key("é𝄞").finish();
  };
  const reused = new ProtoWriter(16);
  // A message past the kept size (1 MiB): the writer lets its buffer go and still writes the next one right.
  for (const text of ["first", "x".repeat(1_200_000), "third", "fourth"]) {
    const fresh = message(new ProtoWriter(16), text);
    const again = message(reused.reset(), text);
    assert.deepEqual(again, fresh, `message of ${text.length} characters`);
    const fields = readFields(again);
    const inner = readFields(fields.get(9)![0] as Uint8Array);
    assert.equal(new TextDecoder().decode(inner.get(1)![0] as Uint8Array), "gen_ai.tool.name");
    assert.equal(new TextDecoder().decode(inner.get(2)![0] as Uint8Array).length, text.length);
    assert.deepEqual(fields.get(1)!.map((key) => new TextDecoder().decode(key as Uint8Array)), ["mcp.method.name", "gen_ai.tool.name", "é𝄞"]);
  }
});
