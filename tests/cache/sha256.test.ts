/**
 * The SHA-256 in plain JavaScript gives WebCrypto's digest, block edges included; the runtime's own
 * takes over once the first few KiB are hashed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { scriptSha256Hex as sha256Hex, sha256Hex as hashed, useRuntimeSha256 } from "../../src/cache/sha256.ts";

async function webCryptoHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

test("sha256: the FIPS 180-4 examples", () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

test("sha256: equals WebCrypto around every padding edge, for ASCII and multi-byte UTF-8", async () => {
  const lengths = [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1_000, 70_000];
  for (const length of lengths) {
    for (const unit of ["a", "é", "😀"]) {
      const text = unit.repeat(length);
      assert.equal(sha256Hex(text), await webCryptoHex(text), `${length} x ${unit}`);
    }
  }
});

test("sha256: the runtime's hash takes texts of 256 characters or more once 4 KiB are hashed in script; shorter ones stay in script; none given: always in script", () => {
  const runtimeHashed: string[] = [];
  const runtimeHash = (text: string) => (runtimeHashed.push(text), sha256Hex(text));
  try {
    useRuntimeSha256(runtimeHash);
    const kib = "k".repeat(1024);
    for (let index = 0; index < 4; index++) assert.equal(hashed(kib), sha256Hex(kib));
    assert.deepEqual(runtimeHashed, [], "the first 4 KiB are hashed in script");
    const long = "l".repeat(256);
    assert.equal(hashed(long), sha256Hex(long));
    assert.deepEqual(runtimeHashed, [long], "then the runtime hashes a long text");
    assert.equal(hashed("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(hashed("t".repeat(255)), sha256Hex("t".repeat(255)));
    assert.deepEqual(runtimeHashed, [long], "a short one (a token) stays in script");
    useRuntimeSha256(undefined);
    for (let index = 0; index < 8; index++) hashed(kib);
    assert.deepEqual(runtimeHashed, [long]);
  } finally {
    useRuntimeSha256(undefined);
  }
});
