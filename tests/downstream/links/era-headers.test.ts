/** The 2026-07-28 request headers made from a request's body, and the POST kept for cancelling it. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RequestId } from "../../../src/protocol/sdk.ts";
import { headerValue, withEraHeaders } from "../../../src/downstream/links/era-headers.ts";

const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };

async function headersFor(body: unknown): Promise<{ headers: Headers; posts: Map<RequestId, AbortController> }> {
  const posts = new Map<RequestId, AbortController>();
  let seen = new Headers();
  const fetch = withEraHeaders((_, init) => (seen = new Headers(init?.headers), Promise.resolve(new Response("{}"))), posts);
  await fetch("http://127.0.0.1/", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { headers: seen, posts };
}

test("a 2026-07-28 request names its version, method and target in headers; its POST can be ended", async () => {
  const { headers, posts } = await headersFor({ jsonrpc: "2.0", id: "wb-1", method: "tools/call", params: { name: "echo", _meta: ENVELOPE } });
  assert.equal(headers.get("mcp-protocol-version"), "2026-07-28");
  assert.equal(headers.get("mcp-method"), "tools/call");
  assert.equal(headers.get("mcp-name"), "echo");
  assert.equal(headers.get("content-type"), "application/json");
  assert.ok(posts.has("wb-1"));
});

test("2025-11-25 traffic passes untouched", async () => {
  const { headers, posts } = await headersFor({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo" } });
  assert.equal(headers.get("mcp-method"), null);
  assert.equal(posts.size, 0);
});

test("a target that is not plain ASCII goes base64-encoded between the markers", () => {
  assert.equal(headerValue("file:///a.txt"), "file:///a.txt");
  assert.equal(headerValue("é"), "=?base64?w6k=?=");
  assert.equal(headerValue(" padded"), `=?base64?${btoa(" padded")}?=`);
  assert.equal(headerValue(""), "=?base64??=");
});
