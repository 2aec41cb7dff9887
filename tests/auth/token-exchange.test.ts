/**
 * Token exchange (issue 49 §4) against a token endpoint played by the test's fetch: the request of
 * RFC 8693, a token kept per member until shortly before it expires, one exchange for requests at
 * the same time, another member never given it, a refusal said without the member's token or the
 * client's secret, and a server's 401 exchanging once more.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { exchangingFetch, TokenExchanges } from "../../src/auth/token-exchange.ts";
import { SubjectTokens } from "../../src/auth/subject-tokens.ts";
import type { TokenExchangeSettings } from "../../src/config/index.ts";

const SETTINGS: TokenExchangeSettings = {
  tokenEndpoint: "http://127.0.0.1:1/token",
  audience: "https://api.example/",
  scope: "repo read",
  clientId: "workbench",
  clientSecret: "client-secret-0123456789",
};
const HOUR = 3_600_000;

/** A token endpoint: each request kept; answers `exchanged-<subject>-<n>` for `expires_in` seconds. */
function endpoint(expiresIn: number | null = 600, answer?: (form: URLSearchParams) => Response) {
  const requests: { form: URLSearchParams; authorization: string | null }[] = [];
  const fetch = async (input: string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const form = new URLSearchParams(await request.text());
    requests.push({ form, authorization: request.headers.get("authorization") });
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (answer) return answer(form);
    const body = { access_token: `exchanged-${form.get("subject_token")}-${requests.length}`, token_type: "Bearer",
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token", ...(expiresIn !== null && { expires_in: expiresIn }) };
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { requests, fetch };
}

function setup(expiresIn: number | null = 600, answer?: (form: URLSearchParams) => Response) {
  let now = 1_000_000;
  const clock = () => now;
  const subjects = new SubjectTokens(clock);
  const server = endpoint(expiresIn, answer);
  const exchanges = new TokenExchanges(subjects, server.fetch, clock);
  return { subjects, exchanges, requests: server.requests, advance: (ms: number) => (now += ms) };
}

test("token exchange: the request of RFC 8693, the client authenticated with its secret", async () => {
  const { subjects, exchanges, requests } = setup();
  subjects.remember("alice", "alice-jwt", 1_000_000 + HOUR);
  assert.equal(await exchanges.for("alice", SETTINGS, "dev/api").token(), "exchanged-alice-jwt-1");
  const [{ form, authorization }] = requests;
  assert.equal(form.get("grant_type"), "urn:ietf:params:oauth:grant-type:token-exchange");
  assert.equal(form.get("subject_token"), "alice-jwt");
  assert.equal(form.get("subject_token_type"), "urn:ietf:params:oauth:token-type:access_token");
  assert.equal(form.get("requested_token_type"), "urn:ietf:params:oauth:token-type:access_token");
  assert.equal(form.get("audience"), "https://api.example/");
  assert.equal(form.get("scope"), "repo read");
  assert.equal(form.get("client_id"), null, "the secret authenticates the client: its id is in the Basic header");
  assert.equal(authorization, `Basic ${btoa("workbench:client-secret-0123456789")}`);
});

test("token exchange: kept per member until shortly before it expires; another member gets their own", async () => {
  const { subjects, exchanges, requests, advance } = setup(600);
  subjects.remember("alice", "alice-jwt", 1_000_000 + HOUR);
  subjects.remember("bob", "bob-jwt", 1_000_000 + HOUR);
  const alice = exchanges.for("alice", SETTINGS, "dev/api");
  assert.equal(await alice.token(), "exchanged-alice-jwt-1");
  assert.equal(await alice.token(), "exchanged-alice-jwt-1");
  assert.equal(await exchanges.for("bob", SETTINGS, "dev/api").token(), "exchanged-bob-jwt-2");
  assert.equal(requests.length, 2);
  // 600 s of life, given up 60 s before its end.
  advance(539_000);
  assert.equal(await alice.token(), "exchanged-alice-jwt-1");
  advance(2_000);
  assert.equal(await alice.token(), "exchanged-alice-jwt-3");
  // The member came with another token: it is exchanged anew.
  subjects.remember("alice", "alice-jwt-2", 1_000_000 + 2 * HOUR);
  assert.equal(await alice.token(), "exchanged-alice-jwt-2-4");
});

test("token exchange: requests at the same time wait for one exchange; an answer without expires_in is kept 5 minutes", async () => {
  const { subjects, exchanges, requests, advance } = setup(null);
  subjects.remember("alice", "alice-jwt", 1_000_000 + HOUR);
  const alice = exchanges.for("alice", SETTINGS, "dev/api");
  const tokens = await Promise.all(Array.from({ length: 20 }, () => alice.token()));
  assert.deepEqual(new Set(tokens), new Set(["exchanged-alice-jwt-1"]));
  assert.equal(requests.length, 1);
  advance(5 * 60_000 - 30_000 + 1);
  assert.equal(await alice.token(), "exchanged-alice-jwt-2");
});

test("token exchange: a member without a token of serve.oauth (or whose token expired) has nothing to exchange", async () => {
  const { subjects, exchanges, requests, advance } = setup();
  await assert.rejects(exchanges.for("carol", SETTINGS, "dev/api").token(), /client 'carol' has no token to exchange: only a client signed in with a JWT/);
  subjects.remember("alice", "alice-jwt", 1_000_000 + 1_000);
  advance(1_000);
  await assert.rejects(exchanges.for("alice", SETTINGS, "dev/api").token(), /client 'alice' has no token to exchange/);
  // Who is who changed (the configuration's clients): a token remembered before is no one's now.
  subjects.remember("bob", "bob-jwt", 1_000_000 + HOUR);
  subjects.clear();
  await assert.rejects(exchanges.for("bob", SETTINGS, "dev/api").token(), /client 'bob' has no token to exchange/);
  assert.equal(requests.length, 0, "nothing is sent without a member's own token");
});

test("token exchange: a refusal says the endpoint's error, never the member's token nor the client's secret", async () => {
  const refuse = (form: URLSearchParams) =>
    new Response(JSON.stringify({ error: "invalid_target", error_description: `no audience for ${form.get("subject_token")} ${SETTINGS.clientSecret}` }), {
      status: 400,
      headers: { "content-type": "application/json" },
    });
  const { subjects, exchanges } = setup(600, refuse);
  subjects.remember("alice", "alice-jwt-secret-part", 1_000_000 + HOUR);
  await assert.rejects(exchanges.for("alice", SETTINGS, "dev/api").token(), (error: Error) => {
    assert.match(error.message, /^The token exchange for server 'dev\/api' at 'http:\/\/127\.0\.0\.1:1\/token' was refused \(400, invalid_target: no audience for \*\*\* \*\*\*\)$/);
    return true;
  });
  const odd = setup(600, () => new Response(JSON.stringify({ access_token: "x", token_type: "N_A" }), { status: 200 }));
  odd.subjects.remember("alice", "alice-jwt", 1_000_000 + HOUR);
  await assert.rejects(odd.exchanges.for("alice", SETTINGS, "dev/api").token(), /answered no usable token: 'token_type' is not "Bearer"/);
  const other = setup(600, () =>
    new Response(JSON.stringify({ access_token: "x", token_type: "Bearer", issued_token_type: "urn:ietf:params:oauth:token-type:id_token" }), { status: 200 }));
  other.subjects.remember("alice", "alice-jwt", 1_000_000 + HOUR);
  await assert.rejects(other.exchanges.for("alice", SETTINGS, "dev/api").token(), /'issued_token_type' is not an access token/);
});

test("token exchange: each request carries the member's token; a 401 exchanges once more and sends it again", async () => {
  const { subjects, exchanges, requests } = setup(600);
  subjects.remember("alice", "alice-jwt", 1_000_000 + HOUR);
  const seen: string[] = [];
  const server = async (_: string | URL, init?: RequestInit) => {
    const authorization = new Headers(init?.headers).get("authorization")!;
    seen.push(authorization);
    return new Response(null, { status: seen.length === 2 ? 401 : 200 });
  };
  const masked: string[] = [];
  const fetch = exchangingFetch(exchanges.for("alice", SETTINGS, "dev/api"), server, (token) => masked.push(token));
  assert.equal((await fetch("http://127.0.0.1:1/mcp", { method: "POST", headers: { "content-type": "application/json" } })).status, 200);
  assert.equal((await fetch("http://127.0.0.1:1/mcp", { method: "POST" })).status, 200);
  assert.deepEqual(seen, ["Bearer exchanged-alice-jwt-1", "Bearer exchanged-alice-jwt-1", "Bearer exchanged-alice-jwt-2"]);
  assert.equal(requests.length, 2);
  assert.deepEqual(new Set(masked), new Set(["exchanged-alice-jwt-1", "exchanged-alice-jwt-2"]), "each token is handed over for masking");
});
