/** revokedBy and accessOf: which clients' sessions a change to `serve` ends while serving over HTTP. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ServeConfig } from "../../../src/config/index.ts";
import { accessOf, revokedBy } from "../../../src/upstream/access/index.ts";

const hex = (digit: string) => digit.repeat(64);
const serve = (clients: Record<string, string>, extra: Partial<ServeConfig> = {}): ServeConfig => ({
  clients: Object.fromEntries(Object.entries(clients).map(([name, digit]) => [name, { tokenSha256: hex(digit), toolboxes: ["*"] }])),
  allowedOrigins: [],
  sessionIdleMinutes: 30,
  ...extra,
});
const OAUTH = { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["a"] };

test("revokedBy: removed, new token or grants end; unchanged stay; JWT subjects end when oauth changes; local and named swap when tokens flip", () => {
  const revoked = revokedBy(serve({ alice: "a", bob: "b", ci: "c" }), serve({ alice: "a", bob: "d", carol: "e" }));
  // carol is new: sessions under that name (a JWT subject) could only be someone else's.
  assert.deepEqual(["alice", "bob", "ci", "carol", "jwt-sub"].map((name) => revoked(name)), [false, true, true, true, false]);
  const grants = revokedBy(serve({ alice: "a" }), { ...serve({}), clients: { alice: { tokenSha256: hex("a"), toolboxes: ["dev"] } } });
  assert.equal(grants("alice"), true);
  assert.equal(revokedBy(serve({}, { oauth: OAUTH }), serve({}, { oauth: { ...OAUTH, audience: ["b"] } }))("jwt-sub"), true);
  assert.equal(revokedBy(serve({}, { oauth: OAUTH }), serve({ x: "a" }, { oauth: OAUTH }))("jwt-sub"), false);
  // From open to tokens: the local user no longer gets in; from tokens to open: every named client ends.
  assert.equal(revokedBy(undefined, serve({ alice: "a" }))("local"), true);
  assert.equal(revokedBy(serve({ alice: "a" }), undefined)("alice"), true);
  assert.equal(revokedBy(undefined, undefined)("local"), false);
});

test("accessOf: the idle time alone is no change to who may connect", () => {
  assert.equal(accessOf(serve({ a: "a" })), accessOf(serve({ a: "a" }, { sessionIdleMinutes: 5 })));
  assert.notEqual(accessOf(serve({ a: "a" })), accessOf(serve({ a: "b" })));
  assert.notEqual(accessOf(serve({ a: "a" })), accessOf(serve({ a: "a" }, { allowedOrigins: ["https://x.example"] })));
});
