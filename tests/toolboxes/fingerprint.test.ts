/**
 * A fingerprint is the SHA-256 of the canonical JSON of a text's parts: the same digests whatever
 * the order of keys, with undefined parts left out, as the lock files written so far hold them
 * (pinParts sorts the parts once, issue 42).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalJson, pinOf, pinParts, TEXT_PARTS } from "../../src/toolboxes/fingerprint.ts";
import { sha256Hex } from "../../src/cache/sha256.ts";
import type { Tool } from "../../src/protocol/sdk.ts";

const tool = {
  name: "greet",
  title: "Greet",
  description: "Greets — in ünïcode 😀",
  inputSchema: {
    type: "object",
    required: ["who"],
    properties: { who: { type: "string", description: "Whom" }, loud: { type: "boolean", default: false } },
  },
  annotations: { readOnlyHint: true, destructiveHint: undefined, title: "x" },
  outputSchema: undefined,
} as unknown as Tool;

test("fingerprint: a tool's and a text's digests are the ones pinned before issue 42", () => {
  assert.equal(pinOf(tool).sha256, "12de770954eb89ede3b37f7b58717865276ecaaec89289eb678c0b6be5463e58");
  const resource = pinParts("res://a", { name: "A", description: "d", title: undefined }, TEXT_PARTS.resource);
  assert.equal(resource.sha256, "953c3f1e03c37866386658998a61ff49aecab169f8d3da80bdd3f52e4756f33f");
});

test("fingerprint: the digest is the canonical JSON's, whatever the order of the keys", () => {
  const { name, title, description, inputSchema, annotations } = tool as unknown as Record<string, unknown>;
  const expected = sha256Hex(canonicalJson({ name, title, description, inputSchema, annotations }));
  assert.equal(pinOf(tool).sha256, expected);
  const reordered = { annotations, inputSchema: { properties: { loud: { default: false, type: "boolean" }, who: { description: "Whom", type: "string" } }, required: ["who"], type: "object" }, description, title, name };
  assert.equal(pinOf(reordered as unknown as Tool).sha256, expected);
});
