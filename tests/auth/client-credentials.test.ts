/**
 * The token request of the client credentials grant, as the SDK's auth() sends it for our provider:
 * the fetch given to auth() plays the protected resource and its authorization server.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { auth } from "../../src/protocol/sdk-remote.ts";
import { ClientCredentialsLogin } from "../../src/auth/client-credentials.ts";
import type { OAuthSettings } from "../../src/config/index.ts";

const BASE = "http://127.0.0.1:1";

/** Metadata for the MCP endpoint and its authorization server; each token request is kept, and answered. */
function authorizationServer() {
  const tokenRequests: { form: URLSearchParams; authorization: string | null }[] = [];
  const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/oauth-protected-resource/mcp") return json({ resource: `${BASE}/mcp`, authorization_servers: [BASE] });
    if (path === "/.well-known/oauth-authorization-server") {
      return json({
        issuer: BASE,
        authorization_endpoint: `${BASE}/authorize`,
        token_endpoint: `${BASE}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["client_credentials"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
      });
    }
    if (path === "/token" && request.method === "POST") {
      tokenRequests.push({ form: new URLSearchParams(await request.text()), authorization: request.headers.get("authorization") });
      return json({ access_token: "at-1", token_type: "Bearer", expires_in: 60 });
    }
    return json({ error: "not_found" }, 404);
  };
  return { fetchFn, tokenRequests };
}

const login = (oauth: Partial<OAuthSettings>, readTextFile: (path: string) => Promise<string> = () => Promise.reject(new Error("no file"))) =>
  new ClientCredentialsLogin({ oauth: { grant: "client_credentials", clientId: "ci-bot", ...oauth }, keyFile: "/keys/bot.pem", readTextFile });

test("client credentials: the token request is the client credentials grant with the configured scopes and the client's secret", async () => {
  const { fetchFn, tokenRequests } = authorizationServer();
  const provider = login({ clientSecret: "s3cret", scopes: ["read", "write"] });
  assert.equal(await auth(provider, { serverUrl: `${BASE}/mcp`, fetchFn }), "AUTHORIZED");
  assert.equal(tokenRequests.length, 1);
  const [{ form, authorization }] = tokenRequests;
  assert.equal(form.get("grant_type"), "client_credentials");
  assert.equal(form.get("scope"), "read write");
  assert.equal(form.get("resource"), `${BASE}/mcp`);
  const secretSent = authorization === `Basic ${btoa("ci-bot:s3cret")}` || (form.get("client_id") === "ci-bot" && form.get("client_secret") === "s3cret");
  assert.ok(secretSent, `client authentication: ${authorization} ${form}`);
  assert.equal(provider.tokens()?.access_token, "at-1");
});

test("client credentials: a private key signs a JWT assertion instead of a secret; an unreadable key names its file", async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]) as CryptoKeyPair;
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const pem = `-----BEGIN PRIVATE KEY-----\n${btoa(String.fromCharCode(...der))}\n-----END PRIVATE KEY-----\n`;
  const { fetchFn, tokenRequests } = authorizationServer();
  const read: string[] = [];
  const provider = login({ privateKeyJwt: { keyFile: "bot.pem", alg: "ES256" }, scopes: ["read"] }, (path) => (read.push(path), Promise.resolve(pem)));
  assert.equal(await auth(provider, { serverUrl: `${BASE}/mcp`, fetchFn }), "AUTHORIZED");
  const [{ form, authorization }] = tokenRequests;
  assert.equal(form.get("scope"), "read");
  assert.equal(form.get("client_assertion_type"), "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
  const claims = JSON.parse(atob(form.get("client_assertion")!.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  assert.equal(claims.iss, "ci-bot");
  assert.equal(claims.sub, "ci-bot");
  assert.equal(authorization, null, "no secret");
  assert.deepEqual(read, ["/keys/bot.pem"]);

  const missing = authorizationServer();
  const unreadable = login({ privateKeyJwt: { keyFile: "bot.pem", alg: "ES256" } });
  await assert.rejects(auth(unreadable, { serverUrl: `${BASE}/mcp`, fetchFn: missing.fetchFn }), {
    message: "cannot read the private key '/keys/bot.pem' (oauth.privateKeyJwt.keyFile): no file",
  });
});
