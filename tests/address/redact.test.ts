import { test } from "node:test";
import assert from "node:assert/strict";
import { displayUrl, Redactor } from "../../src/address/redact.ts";
import type { RemoteServerConfig } from "../../src/config/index.ts";
import { DEFAULT_SETTINGS } from "../../src/config/index.ts";

const server = (url: string, headers: Record<string, string> = {}, clientSecret?: string): RemoteServerConfig => ({
  url,
  headers,
  transport: "http",
  ...(clientSecret && { oauth: { clientId: "id", clientSecret } }),
  ...DEFAULT_SETTINGS,
});

test("redact: header values, the bearer token alone, and the OAuth client secret", () => {
  const redactor = Redactor.forServer(server("http://127.0.0.1/mcp", { Authorization: "Bearer abc123xyz", "X-Key": "k-42-k" }, "cs-999"));
  assert.equal(
    redactor.redact("got Bearer abc123xyz, then abc123xyz, key k-42-k and cs-999"),
    "got ***, then ***, key *** and ***",
  );
});

test("redact: user:password and query values, as written and decoded", () => {
  const redactor = Redactor.forServer(server("http://alice:p%40ss@127.0.0.1/mcp?token=t%2Fok&x=plainvalue"));
  const text = "alice p%40ss p@ss t%2Fok t/ok plainvalue";
  assert.equal(redactor.redact(text), "*** *** *** *** *** ***");
});

test("redact: very short values are left alone, so common text stays readable", () => {
  assert.equal(Redactor.forServer(server("http://127.0.0.1/mcp?v=2", { "X-A": "1" })).redact("v2 has 1 and 2"), "v2 has 1 and 2");
});

test("redact: a value containing another is masked whole", () => {
  const redactor = new Redactor(["abc", "abcdef"]);
  assert.equal(redactor.redact("abcdef abc"), "*** ***");
});

test("displayUrl: masks user:password and every query value, keeps the rest", () => {
  assert.equal(displayUrl("https://u:p@example.test:8443/mcp?key=s3cret&a=b"), "https://***:***@example.test:8443/mcp?key=***&a=***");
  assert.equal(displayUrl("http://127.0.0.1:9/sse"), "http://127.0.0.1:9/sse");
});

test("redact: with() adds values found at run time and keeps the configured secrets; the original is unchanged", () => {
  const configured = Redactor.forServer(server("http://127.0.0.1/mcp?token=q-secret", { "X-Key": "k-42-k" }, "cs-999"));
  const extended = configured.with(["run-time-token"]);
  assert.equal(extended.redact("k-42-k q-secret cs-999 run-time-token"), "*** *** *** ***");
  assert.equal(configured.redact("k-42-k run-time-token"), "*** run-time-token");
});

test("redact: what a stdio server sends is masked of its env's secrets, not of its settings", () => {
  const redactor = Redactor.forEnvMessages({
    GITHUB_TOKEN: "ghp-short-1",
    DB_PASSWORD: "hunter2hunter2",
    SOME_VALUE: "abcdefghij0123456789xyz",
    DATABASE_URL: "postgres://app:s3cr3t-pass@127.0.0.1/db",
    NODE_ENV: "production",
    ALLOWED_DIR: "/home/me/projects",
    AUTHOR: "Jane Smith-Jones",
  });
  assert.equal(
    redactor.redact("ghp-short-1 hunter2hunter2 abcdefghij0123456789xyz s3cr3t-pass production /home/me/projects Jane Smith-Jones"),
    "*** *** *** *** production /home/me/projects Jane Smith-Jones",
  );
  assert.equal(Redactor.forEnvMessages({ NODE_ENV: "production" }).empty, true);
  assert.equal(Redactor.forEnv({ NODE_ENV: "production" }).redact("production"), "***", "its stderr and our messages about it stay as they were");
});

test("redact: what a remote server sends is masked of its secrets, not of every header and query value", () => {
  const config = server("http://alice:pw-9x8y@127.0.0.1/mcp?format=json&region=eu-west-1&api_key=k-1234&sig=abcdefghij0123456789xyz", {
    Authorization: "Bearer tok-123456",
    "X-Api-Key": "xk-42-42",
    Accept: "application/json",
    "X-Region": "eu-central-7",
  }, "cs-999");
  const text = "alice pw-9x8y json eu-west-1 k-1234 abcdefghij0123456789xyz Bearer tok-123456 tok-123456 xk-42-42 application/json eu-central-7 cs-999";
  assert.equal(
    Redactor.forServerMessages(config).redact(text),
    "alice *** json eu-west-1 *** *** *** *** *** application/json eu-central-7 ***",
  );
  assert.equal(Redactor.forServer(config).redact("json eu-central-7 alice"), "*** *** ***", "messages about it stay as they were");
});
