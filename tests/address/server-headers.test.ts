import { test } from "node:test";
import assert from "node:assert/strict";
import { withServerHeaders } from "../../src/address/server-headers.ts";

/** An inner fetch that records what each request carried, and answers 204. */
function recorder() {
  const seen: { url: string; headers: Record<string, string> }[] = [];
  const inner = (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    seen.push({ url, headers });
    return Promise.resolve(new Response(null, { status: 204 }));
  };
  return { seen, inner };
}

test("server headers: the configured headers go to the server's origin only, never to an authorization server", async () => {
  const { seen, inner } = recorder();
  const fetch = withServerHeaders(new URL("https://mcp.example.test/mcp"), { "X-Api-Key": "k-secret" }, inner);
  await fetch(new URL("https://mcp.example.test/mcp"), { headers: new Headers({ accept: "application/json" }) });
  await fetch("https://mcp.example.test/.well-known/oauth-protected-resource");
  await fetch("https://auth.example.test/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" } });
  await fetch("http://mcp.example.test/mcp");
  assert.deepEqual(seen, [
    { url: "https://mcp.example.test/mcp", headers: { accept: "application/json", "x-api-key": "k-secret" } },
    { url: "https://mcp.example.test/.well-known/oauth-protected-resource", headers: { "x-api-key": "k-secret" } },
    { url: "https://auth.example.test/token", headers: { "content-type": "application/x-www-form-urlencoded" } },
    // Another scheme is another origin.
    { url: "http://mcp.example.test/mcp", headers: {} },
  ]);
});

test("server headers: the configured headers win over the transport's own, as requestInit's did", async () => {
  const { seen, inner } = recorder();
  const fetch = withServerHeaders(new URL("http://127.0.0.1:9/mcp"), { Authorization: "Bearer static" }, inner);
  await fetch("http://127.0.0.1:9/mcp", { headers: { Authorization: "Bearer from-oauth" } });
  assert.equal(seen[0].headers.authorization, "Bearer static");
});

test("server headers: a look-alike origin (the server's host as a prefix, or another port) gets none of them", async () => {
  const { seen, inner } = recorder();
  const fetch = withServerHeaders(new URL("https://mcp.example.test/mcp"), { "X-Api-Key": "k-secret" }, inner);
  await fetch("https://mcp.example.test.evil.test/mcp");
  await fetch("https://mcp.example.test:8443/mcp");
  await fetch(new URL("https://mcp.example.test.evil.test/token"), { method: "POST" });
  assert.deepEqual(seen, [
    { url: "https://mcp.example.test.evil.test/mcp", headers: {} },
    { url: "https://mcp.example.test:8443/mcp", headers: {} },
    { url: "https://mcp.example.test.evil.test/token", headers: {} },
  ]);
});
