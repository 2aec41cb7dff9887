/**
 * JWTs signed with jose against a JWKS served on 127.0.0.1 (port 0): accepted with the toolboxes
 * of their scopes; wrong audience, wrong issuer, expired, not yet valid, unsigned by the issuer
 * refused with 401 invalid_token; no toolbox granted gets 403 insufficient_scope; keys cached, and
 * a rotation followed (a new kid fetches the JWKS again); keys out of reach are 503, not 401; a
 * subject named as a static client, case aside, is refused.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { type ServeConfig, validateConfig } from "../../../src/config/index.ts";
import { authenticatorFor, type Identity, RESOURCE_METADATA_PATH } from "../../../src/upstream/access/index.ts";
import type { LoopbackServer } from "../../../src/platform/types.ts";

const ISSUER = "https://idp.example.com";
const AUDIENCES = ["https://wb.example.com/mcp", "workbench"];
const TOOLBOXES = ["dev", "ops"];
const METADATA_URL = `http://127.0.0.1:4000${RESOURCE_METADATA_PATH}`;

type Key = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
interface Signer {
  kid: string;
  privateKey: Key;
  jwk: JWK;
}

async function signer(kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { kid, privateKey, jwk: { ...await exportJWK(publicKey), kid, alg: "ES256", use: "sig" } };
}

let jwks: LoopbackServer;
let published: JWK[] = [];
let fetches = 0;
let k1: Signer;
let serve: ServeConfig;

before(async () => {
  k1 = await signer("k1");
  published = [k1.jwk];
  jwks = await platform.serve(() => {
    fetches++;
    return Response.json({ keys: published });
  });
  const data = { toolboxes: { dev: {}, ops: {} }, serve: { oauth: { issuer: ISSUER, jwksUri: `${jwks.url}/jwks`, audience: AUDIENCES } } };
  serve = validateConfig(data).serve!;
});

after(async () => await jwks.close());

interface Claims {
  sub?: string;
  scope?: string;
  scp?: string[];
  iss?: string;
  aud?: string | string[];
  /** Seconds from now. */
  exp?: number | null;
  nbf?: number;
}

async function token(claims: Claims = {}, key: Signer = k1, kid = key.kid): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { sub = "alice", iss = ISSUER, aud = AUDIENCES[0], exp = 300, nbf, ...rest } = claims;
  const jwt = new SignJWT({ ...("scope" in claims || "scp" in claims ? rest : { scope: "toolbox:dev" }) })
    .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" })
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt();
  if (sub !== "") jwt.setSubject(sub);
  if (exp !== null) jwt.setExpirationTime(now + exp);
  if (nbf !== undefined) jwt.setNotBefore(now + nbf);
  return await jwt.sign(key.privateKey);
}

const request = (jwt: string) => new Request("http://127.0.0.1:4000/mcp", { method: "POST", headers: { authorization: `Bearer ${jwt}` } });

async function refusal(outcome: Identity | Response) {
  assert.ok(outcome instanceof Response, `expected a refusal, got ${JSON.stringify(outcome)}`);
  return { status: outcome.status, challenge: outcome.headers.get("www-authenticate"), body: await outcome.json() as { error: string; error_description: string } };
}

test("jwt: a token of the issuer for one of the audiences is accepted: its subject, the toolboxes of its scopes", async () => {
  const authenticate = authenticatorFor(serve, { toolboxes: TOOLBOXES, jwksCooldownMs: 0 });
  assert.deepEqual(await authenticate(request(await token())), { name: "alice", toolboxes: ["dev"] });
  assert.deepEqual(await authenticate(request(await token({ sub: "bob", scope: "openid toolbox:ops toolbox:dev toolbox:gone" }))), { name: "bob", toolboxes: ["dev", "ops"] });
  assert.deepEqual(await authenticate(request(await token({ aud: [AUDIENCES[1], "other"], scp: ["toolbox:*"] }))), { name: "alice", toolboxes: "*" });
  assert.equal(fetches, 1, "the keys are fetched once and cached");
});

test("jwt: the toolboxes a scope may grant are those configured when the request comes (the configuration applies live)", async () => {
  const configured = ["dev"];
  const authenticate = authenticatorFor(serve, { get toolboxes() { return configured; }, jwksCooldownMs: 0 });
  const refused = await authenticate(request(await token({ scope: "toolbox:ops" })));
  assert.ok(refused instanceof Response && refused.status === 403, "ops is not configured yet");
  configured.push("ops");
  assert.deepEqual(await authenticate(request(await token({ scope: "toolbox:ops" }))), { name: "alice", toolboxes: ["ops"] });
});

test("jwt: wrong audience, wrong issuer, expired, nbf in the future, no exp, no sub, another key: 401 invalid_token, saying why", async () => {
  const authenticate = authenticatorFor(serve, { toolboxes: TOOLBOXES, jwksCooldownMs: 0 });
  const stranger = await signer("k1");
  const cases: [string, Promise<string>, string][] = [
    ["wrong audience", token({ aud: "https://other.example.com/mcp" }), "The token's audience is not one of serve.oauth.audience"],
    ["wrong issuer", token({ iss: "https://evil.example.com" }), `The token's issuer is not '${ISSUER}'`],
    ["expired", token({ exp: -3600 }), "The token has expired"],
    ["nbf in the future", token({ nbf: 3600 }), "The token is not valid yet: its 'nbf' is in the future"],
    ["no exp", token({ exp: null }), "The token has no expiry ('exp')"],
    ["no sub", token({ sub: "" }), "The token has no subject ('sub')"],
    ["signed by another key with the same kid", token({}, stranger), "The token's signature does not verify"],
  ];
  for (const [what, jwt, reason] of cases) {
    const refused = await refusal(await authenticate(request(await jwt)));
    assert.equal(refused.status, 401, what);
    assert.equal(refused.challenge, `Bearer resource_metadata="${METADATA_URL}", error="invalid_token"`, what);
    assert.deepEqual(refused.body, { error: "invalid_token", error_description: reason }, what);
  }
});

test("jwt: a valid token that grants no toolbox gets 403 insufficient_scope naming no toolbox, only toolbox:*", async () => {
  const authenticate = authenticatorFor(serve, { toolboxes: TOOLBOXES, jwksCooldownMs: 0 });
  for (const scope of ["", "openid profile", "toolbox:gone", "toolboxes:dev"]) {
    const refused = await refusal(await authenticate(request(await token({ scope }))));
    assert.equal(refused.status, 403, scope);
    assert.equal(refused.challenge, `Bearer resource_metadata="${METADATA_URL}", error="insufficient_scope", scope="toolbox:*"`);
    assert.equal(refused.body.error, "insufficient_scope");
  }
});

test("jwt: rotation: a token with a new kid is refused until the JWKS has its key, then accepted; the old key's go when it is gone", async () => {
  const authenticate = authenticatorFor(serve, { toolboxes: TOOLBOXES, jwksCooldownMs: 0 });
  const k2 = await signer("k2");
  const before = fetches;
  assert.deepEqual(await authenticate(request(await token())), { name: "alice", toolboxes: ["dev"] });
  const early = await refusal(await authenticate(request(await token({}, k2)))); // k2 is not published yet
  assert.equal(early.status, 401);
  assert.equal(early.body.error_description, "No key of the issuer's JWKS matches the token");
  published = [k2.jwk];
  assert.deepEqual(await authenticate(request(await token({ sub: "carol" }, k2))), { name: "carol", toolboxes: ["dev"] });
  assert.equal((await refusal(await authenticate(request(await token())))).status, 401, "k1 left the JWKS");
  assert.ok(fetches - before >= 2 && fetches - before <= 4, `fetches: ${fetches - before}`);
  published = [k1.jwk];
});

test("jwt: keys out of reach are 503 (the token may be good), not 401; a static token still works beside OAuth", async () => {
  const closed = await platform.serve(() => new Response("no"));
  const url = closed.url;
  await closed.close();
  const gone = validateConfig({ toolboxes: { dev: {} }, serve: { oauth: { issuer: ISSUER, jwksUri: `${url}/jwks`, audience: AUDIENCES } } }).serve!;
  const outcome = await authenticatorFor(gone, { toolboxes: ["dev"] })(request(await token()));
  assert.ok(outcome instanceof Response);
  assert.equal(outcome.status, 503);
  assert.deepEqual(await outcome.json(), { error: "temporarily_unavailable", error_description: `Cannot fetch the issuer's keys from '${url}/jwks'` });

  const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("static-one")))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const both = validateConfig({ toolboxes: { dev: {}, ops: {} }, serve: { ...{ oauth: serve.oauth }, clients: { ci: { tokenSha256: hash, toolboxes: ["ops"] } } } }).serve!;
  const authenticate = authenticatorFor(both, { toolboxes: TOOLBOXES, jwksCooldownMs: 0 });
  assert.deepEqual(await authenticate(request("static-one")), { name: "ci", toolboxes: ["ops"] });
  assert.deepEqual(await authenticate(request(await token())), { name: "alice", toolboxes: ["dev"] });
  // A subject is ${WORKBENCH_CLIENT} in file paths: never a way out of a folder, nor another's name by case (see client-names.ts).
  for (const sub of ["../alice", "a/b", "..", "a\\b", "ALICE", "alice.", "x:y"]) {
    const outcome = await authenticate(request(await token({ sub })));
    assert.ok(!(outcome instanceof Response), sub);
    assert.match(outcome.name, /^[a-z0-9][a-z0-9._-]*~[0-9a-f]{16}$/, sub);
  }
  // A subject that is a static client's name would share that client's processes and files.
  const posing = await authenticate(request(await token({ sub: "ci" })));
  assert.ok(posing instanceof Response);
  assert.equal(posing.status, 403);
  assert.deepEqual(await posing.json(), {
    error: "access_denied",
    error_description: "The token's subject 'ci' is the name of a client in serve.clients: the two would share its processes and files",
  });
  // Nor may it be the user over stdio's.
  const local = await authenticate(request(await token({ sub: "local" })));
  assert.ok(local instanceof Response);
  assert.equal(local.status, 403);
  assert.equal((await local.json()).error_description, "The token's subject 'local' is the name of the user over stdio: the two would share its processes and files");
});

test("jwt: a subject whose name is a static client's in another case is refused (one file name on macOS and Windows)", async () => {
  const hash = "0".repeat(64);
  const withCi = validateConfig({ toolboxes: { dev: {}, ops: {} }, serve: { oauth: serve.oauth, clients: { CI: { tokenSha256: hash, toolboxes: ["ops"] } } } }).serve!;
  const refused = await authenticatorFor(withCi, { toolboxes: TOOLBOXES, jwksCooldownMs: 0 })(request(await token({ sub: "ci" })));
  assert.ok(refused instanceof Response);
  assert.equal(refused.status, 403);
});
