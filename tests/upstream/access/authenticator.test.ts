/**
 * authenticatorFor with static tokens, the Origin check, the open user on loopback, the refusal to
 * bind beyond loopback without tokens, and the protected resource metadata the 401s point to.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { expandConfig, type ServeConfig, validateConfig } from "../../../src/config/index.ts";
import { type Authenticate, LOCAL_USER } from "../../../src/upstream/client-identity.ts";
import {
  authenticatorFor,
  bindingRefusal,
  type Identity,
  protectedResourceMetadata,
  RESOURCE_METADATA_PATH,
} from "../../../src/upstream/access/index.ts";
import { sameDigest, sha256 } from "../../../src/upstream/access/static-tokens.ts";

const ALICE_TOKEN = "alice-token-1f4e9c";
const CI_TOKEN = "ci-token-77aa03";
const BOB_TOKEN = "bob-token-0c1d2e";
const TOOLBOXES = ["dev", "ops"];
const hex = async (text: string) => [...await sha256(text)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/** alice (hashed, dev), bob (hashed, ops), ci (from $CI_TOKEN, every toolbox), as loaded from a file. */
async function serveOf(extra: Record<string, unknown> = {}): Promise<ServeConfig> {
  const data = {
    toolboxes: { dev: {}, ops: {} },
    serve: {
      clients: {
        alice: { tokenSha256: await hex(ALICE_TOKEN), toolboxes: ["dev"] },
        bob: { tokenSha256: (await hex(BOB_TOKEN)).toUpperCase(), toolboxes: ["ops"] },
        ci: { token: "${CI_TOKEN}", toolboxes: ["*"] },
      },
      ...extra,
    },
  };
  return expandConfig(validateConfig(data), { CI_TOKEN }).serve!;
}

const URL_BASE = "http://127.0.0.1:4000";
const METADATA_URL = `${URL_BASE}${RESOURCE_METADATA_PATH}`;
const request = (headers: Record<string, string> = {}) => new Request(`${URL_BASE}/mcp`, { method: "POST", headers });
const bearer = (token: string, headers: Record<string, string> = {}) => request({ authorization: `Bearer ${token}`, ...headers });

async function refusal(outcome: Identity | Response): Promise<{ status: number; challenge: string | null; body: string }> {
  assert.ok(outcome instanceof Response, `expected a refusal, got ${JSON.stringify(outcome)}`);
  return { status: outcome.status, challenge: outcome.headers.get("www-authenticate"), body: await outcome.text() };
}

test("authenticator: without clients and oauth everyone is the local user (LOCAL_USER)", async () => {
  for (const serve of [undefined, validateConfig({ toolboxes: {}, serve: { clients: {} } }).serve]) {
    // It is the seam's Authenticate (a compile-time check as much as a run-time one).
    const authenticate: Authenticate = authenticatorFor(serve, { toolboxes: TOOLBOXES });
    assert.deepEqual(await authenticate(request()), LOCAL_USER);
    assert.deepEqual(await authenticate(bearer("anything")), LOCAL_USER);
  }
});

test("authenticator: static tokens: hashed and from the environment give the client's name and grants", async () => {
  const authenticate = authenticatorFor(await serveOf(), { toolboxes: TOOLBOXES });
  assert.deepEqual(await authenticate(bearer(ALICE_TOKEN)), { name: "alice", toolboxes: ["dev"] });
  assert.deepEqual(await authenticate(bearer(BOB_TOKEN)), { name: "bob", toolboxes: ["ops"] });
  assert.deepEqual(await authenticate(bearer(CI_TOKEN)), { name: "ci", toolboxes: "*" });
  assert.deepEqual(await authenticate(request({ authorization: `bearer   ${CI_TOKEN}` })), { name: "ci", toolboxes: "*" });
});

test("authenticator: 401 without a token (no error code) and with a bad one (invalid_token); without serve.oauth no resource_metadata; the token is in no answer", async () => {
  const authenticate = authenticatorFor(await serveOf(), { toolboxes: TOOLBOXES });
  const headerSets: Record<string, string>[] = [{}, { authorization: `Basic ${btoa("alice:pw")}` }, { authorization: "Bearer" }];
  for (const headers of headerSets) {
    const missing = await refusal(await authenticate(request(headers)));
    assert.equal(missing.status, 401);
    // No authorization server to discover: the client is to send a bearer token, not start an OAuth login.
    assert.equal(missing.challenge, "Bearer");
  }
  for (const token of [`${ALICE_TOKEN}x`, ALICE_TOKEN.slice(0, -1), await hex(ALICE_TOKEN), "a.b.c"]) {
    const bad = await refusal(await authenticate(bearer(token)));
    assert.equal(bad.status, 401);
    assert.equal(bad.challenge, `Bearer error="invalid_token"`);
    assert.deepEqual(JSON.parse(bad.body), { error: "invalid_token", error_description: "The bearer token is not valid" });
    assert.ok(!bad.body.includes(token) && !bad.challenge!.includes(token));
  }
  // With serve.oauth the challenge names the metadata, where the authorization server is.
  const oauth = { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["https://wb.example.com/mcp"] };
  const withOauth = authenticatorFor(await serveOf({ oauth }), { toolboxes: TOOLBOXES });
  assert.equal((await refusal(await withOauth(request()))).challenge, `Bearer resource_metadata="${METADATA_URL}"`);
  assert.equal((await refusal(await withOauth(bearer("wrong")))).challenge, `Bearer resource_metadata="${METADATA_URL}", error="invalid_token"`);
});

test("authenticator: every client's digest is compared, whichever matched (no early exit), with the constant-time comparison", async () => {
  const compared: number[] = [];
  let calls = 0;
  const compare = (a: Uint8Array, b: Uint8Array) => (calls++, sameDigest(a, b));
  const authenticate = authenticatorFor(await serveOf(), { toolboxes: TOOLBOXES, compare });
  for (const token of [ALICE_TOKEN, BOB_TOKEN, CI_TOKEN, "wrong"]) {
    calls = 0;
    await authenticate(bearer(token));
    compared.push(calls);
  }
  assert.deepEqual(compared, [3, 3, 3, 3]);
  // The comparison itself: every byte, lengths included.
  const a = await sha256("x");
  assert.equal(sameDigest(a, await sha256("x")), true);
  assert.equal(sameDigest(a, await sha256("y")), false);
  assert.equal(sameDigest(a, a.slice(0, 31)), false);
  assert.equal(sameDigest(a, Uint8Array.from([...a.slice(0, 31), a[31] ^ 1])), false);
});

test("authenticator: an Origin neither loopback nor allowed gets 403, even with a good token; no Origin passes", async () => {
  const authenticate = authenticatorFor(await serveOf({ allowedOrigins: ["https://app.example.com"] }), { toolboxes: TOOLBOXES });
  for (const origin of ["https://evil.example", "null", "https://app.example.com.evil.example", "http://app.example.com", "file://"]) {
    const refused = await refusal(await authenticate(bearer(CI_TOKEN, { origin })));
    assert.equal(refused.status, 403, origin);
    assert.equal(refused.challenge, null);
    assert.deepEqual(JSON.parse(refused.body), {
      jsonrpc: "2.0",
      error: { code: -32000, message: `Origin '${origin}' is not allowed: only loopback origins and those in serve.allowedOrigins may use the workbench` },
      id: null,
    });
  }
  for (const origin of ["https://app.example.com", "http://localhost:5173", "http://127.0.0.1:6274", "http://[::1]:3000"]) {
    assert.deepEqual(await authenticate(bearer(CI_TOKEN, { origin })), { name: "ci", toolboxes: "*" }, origin);
  }
  // The open user on loopback is protected from rebinding too.
  const open = authenticatorFor(undefined, { toolboxes: TOOLBOXES });
  assert.equal((await refusal(await open(request({ origin: "https://evil.example" })))).status, 403);
  assert.deepEqual(await open(request({ origin: "http://localhost:8080" })), LOCAL_USER);
});

test("bindingRefusal: beyond loopback without clients or oauth, a message that says how to configure a token", async () => {
  for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"]) assert.equal(bindingRefusal(host, undefined), undefined, host);
  const expected = `Cannot serve on '0.0.0.0' over HTTP without tokens: anyone who reaches it could use every toolbox; ` +
    `give each client a token in the configuration, e.g. "serve": {"clients": {"ci": {"token": "\${CI_TOKEN}", "toolboxes": ["*"]}}}, ` +
    `or set "serve": {"oauth": {"issuer", "jwksUri", "audience"}}, or serve on 127.0.0.1`;
  assert.equal(bindingRefusal("0.0.0.0", undefined), expected);
  assert.equal(bindingRefusal("0.0.0.0", validateConfig({ toolboxes: {}, serve: { clients: {} } }).serve), expected);
  assert.match(bindingRefusal("192.168.1.7", undefined) ?? "", /^Cannot serve on '192\.168\.1\.7'/);
  assert.equal(bindingRefusal("0.0.0.0", await serveOf()), undefined);
  const oauth = { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["https://wb.example.com/mcp"] };
  assert.equal(bindingRefusal("::", validateConfig({ toolboxes: {}, serve: { oauth } }).serve), undefined);
});

test("metadata: the protected resource metadata names the resource, the issuer, the scope toolbox:* (no toolbox: it is public) and the header", async () => {
  const oauth = { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["https://wb.example.com/mcp"] };
  const serve = await serveOf({ oauth });
  const response = protectedResourceMetadata(new Request(METADATA_URL), serve);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(await response.json(), {
    resource: `${URL_BASE}/mcp`,
    authorization_servers: ["https://idp.example.com"],
    scopes_supported: ["toolbox:*"],
    bearer_methods_supported: ["header"],
  });
  // Static tokens alone (or nothing): no authorization server, no login to discover: 404 saying to send a bearer token.
  for (const without of [await serveOf(), undefined]) {
    const alone = protectedResourceMetadata(new Request(METADATA_URL), without);
    assert.equal(alone.status, 404);
    assert.match((await alone.json()).error_description, /no OAuth login: send 'Authorization: Bearer <token>'/);
  }
  assert.equal(protectedResourceMetadata(new Request(METADATA_URL, { method: "POST" }), serve).status, 405);
});
