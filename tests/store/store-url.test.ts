/** The store's URL: each scheme, credentials as written or percent-encoded, IPv6, a database; clear errors that never show the password. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseStoreUrl } from "../../src/store/store-url.ts";

test("store URL: host, port and database, with the defaults", () => {
  assert.deepEqual(parseStoreUrl("redis://cache.internal"), {
    address: { host: "cache.internal", port: 6379, tls: false, database: 0 },
    name: "redis://cache.internal:6379",
  });
  assert.deepEqual(parseStoreUrl("redis://10.0.0.5:7000/3"), {
    address: { host: "10.0.0.5", port: 7000, tls: false, database: 3 },
    name: "redis://10.0.0.5:7000/3",
  });
  assert.deepEqual(parseStoreUrl("redis://[::1]:6380/"), { address: { host: "::1", port: 6380, tls: false, database: 0 }, name: "redis://[::1]:6380" });
});

test("store URL: rediss and valkeys are TLS, valkey is redis, the scheme in any case", () => {
  assert.equal(parseStoreUrl("rediss://h").address.tls, true);
  assert.equal(parseStoreUrl("valkeys://h").address.tls, true);
  assert.equal(parseStoreUrl("valkey://h").address.tls, false);
  assert.equal(parseStoreUrl("REDIS://h").name, "redis://h:6379");
  assert.equal(parseStoreUrl("valkey://h:1/2").name, "valkey://h:1/2");
});

test("store URL: a user and a password, percent-encoded or with @ / : as they are; the name keeps the user, never the password", () => {
  const encoded = parseStoreUrl("redis://alice:p%40ss%2Fw%3Ard@h:6379/1");
  assert.equal(encoded.address.username, "alice");
  assert.equal(encoded.address.password, "p@ss/w:rd");
  assert.equal(encoded.name, "redis://alice@h:6379/1");
  const raw = parseStoreUrl("redis://alice:p@ss/w:rd@h:6379/1");
  assert.deepEqual(raw, encoded);
  const noUser = parseStoreUrl("redis://:secret@h");
  assert.deepEqual(noUser.address, { host: "h", port: 6379, tls: false, database: 0, password: "secret" });
  assert.equal(noUser.name, "redis://h:6379");
  assert.equal(parseStoreUrl("redis://bob@h").address.password, undefined);
});

test("store URL: what it refuses, saying what and never the password", () => {
  const cases: Array<[string, RegExp]> = [
    ["http://secret@h", /^Invalid store URL: expected 'redis:\/\/', 'rediss:\/\/', 'valkey:\/\/' or 'valkeys:\/\/', received 'http:\/\/'$/],
    ["h:6379", /^Invalid store URL: expected .*, received 'h:6379'$/],
    ["localhost-with:secret@6379", /received '\(no scheme\)'$/],
    ["redis://:secret@", /^Invalid store URL: no host$/],
    ["redis://:secret@h:99999", /^Invalid store URL: port '99999' is not between 1 and 65535$/],
    ["redis://:secret@h:0", /port '0'/],
    ["redis://:secret@h:6379/db", /^Invalid store URL: expected a database number after the host, received '\/db'$/],
    ["redis://:secret@h:6379/0?tls=1", /received '\/0\?tls=1'$/],
    ["redis://:secret@h:x", /^Invalid store URL: bad host and port 'h:x'$/],
    ["redis://:secret@[zz]:1", /bad host and port '\[zz\]:1'/],
    ["redis://:sec%zzret@h", /^Invalid store URL: the password has a '%' that is not followed by two hex digits$/],
  ];
  for (const [url, expected] of cases) {
    assert.throws(() => parseStoreUrl(url), (error: Error) => {
      assert.equal(error.name, "StoreUrlError");
      assert.match(error.message, expected, url);
      assert.ok(!error.message.includes("secret") && !error.message.includes("sec%zz"), `no password in: ${error.message}`);
      return true;
    });
  }
});
