import { test } from "node:test";
import assert from "node:assert/strict";
import { withTraceHeaders } from "../../../src/downstream/links/trace-headers.ts";

/** The headers each request reached the inner fetch with. */
function recorder() {
  const seen: Headers[] = [];
  const fetch = withTraceHeaders((_input, init) => {
    seen.push(new Headers(init?.headers));
    return Promise.resolve(new Response("{}"));
  });
  return { seen, fetch };
}

const PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

test("trace headers: a request's _meta trace context goes into its HTTP headers too, beside the headers it had", async () => {
  const { seen, fetch } = recorder();
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "echo", arguments: { traceparent: "00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01" }, _meta: { traceparent: PARENT, tracestate: "vendor=x", baggage: "k=v" } },
  });
  await fetch("http://127.0.0.1:1/mcp", { method: "POST", body, headers: { authorization: "Bearer t" } });
  assert.equal(seen[0].get("traceparent"), PARENT, "the message's own _meta, never its arguments");
  assert.equal(seen[0].get("tracestate"), "vendor=x");
  assert.equal(seen[0].get("baggage"), "k=v");
  assert.equal(seen[0].get("authorization"), "Bearer t");
});

test("trace headers: no trace context, a body that is not JSON, or a value a header cannot carry: the request goes as it was", async () => {
  const { seen, fetch } = recorder();
  await fetch("http://127.0.0.1:1/mcp", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }) });
  await fetch("http://127.0.0.1:1/mcp", { method: "POST", body: '{"traceparent" broken' });
  const odd = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: { traceparent: PARENT, baggage: "k=v\r\nx: y" } } });
  await fetch("http://127.0.0.1:1/mcp", { method: "POST", body: odd });
  assert.equal(seen[0].get("traceparent"), null);
  assert.equal(seen[1].get("traceparent"), null);
  assert.equal(seen[2].get("traceparent"), PARENT);
  assert.equal(seen[2].get("baggage"), null, "a baggage with a line break stays in _meta");
});
