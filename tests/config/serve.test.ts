/** The `serve` key: its shape, defaults, grants checked against the toolboxes, tokens from the environment. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateConfig } from "../../src/config/index.ts";
import { configErrorOf, IN_FILE, loadJson, rejectsWithConfigError } from "./helpers.ts";

const HASH = "ab".repeat(32);
const withServe = (serve: unknown) => ({ toolboxes: { dev: {}, ops: {} }, serve });
const errorFor = (serve: unknown) => configErrorOf(() => validateConfig(withServe(serve)));

test("serve: the issue's example is valid; defaults fill in; hashes are lower-cased; '*' grants all", async () => {
  const { config } = await loadJson(withServe({
    clients: {
      alice: { tokenSha256: HASH.toUpperCase(), toolboxes: ["dev"] },
      ci: { token: "${CI_TOKEN}", toolboxes: ["*"] },
    },
    oauth: { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["https://wb.example.com/mcp"] },
    allowedOrigins: ["https://app.example.com"],
  }), { CI_TOKEN: "s3cret-token" });
  assert.deepEqual(config.serve, {
    clients: { alice: { tokenSha256: HASH, toolboxes: ["dev"] }, ci: { token: "s3cret-token", toolboxes: "*" } },
    oauth: { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["https://wb.example.com/mcp"] },
    allowedOrigins: ["https://app.example.com"],
    sessionIdleMinutes: 30,
  });
  assert.equal(validateConfig({ toolboxes: {} }).serve, undefined);
  assert.equal(validateConfig(withServe({ sessionIdleMinutes: 5 })).serve?.sessionIdleMinutes, 5);
});

test("serve: a grant of a toolbox that is not configured is an error, with the closest name", () => {
  assert.equal(
    errorFor({ clients: { alice: { tokenSha256: HASH, toolboxes: ["dev", "opps"] } } }),
    "Invalid configuration at serve.clients.alice.toolboxes[1]: toolbox 'opps' is not configured (did you mean 'ops'?)",
  );
  assert.equal(
    errorFor({ clients: { alice: { tokenSha256: HASH, toolboxes: ["billing"] } } }),
    "Invalid configuration at serve.clients.alice.toolboxes[0]: toolbox 'billing' is not configured",
  );
});

test("serve: a client has exactly one token source, and no two clients share a hashed token", () => {
  assert.equal(errorFor({ clients: { c: { toolboxes: ["*"] } } }), "Invalid configuration at serve.clients.c: expected either 'tokenSha256' or 'token'");
  assert.equal(
    errorFor({ clients: { c: { token: "${T}", tokenSha256: HASH, toolboxes: ["*"] } } }),
    "Invalid configuration at serve.clients.c: expected either 'tokenSha256' or 'token', not both",
  );
  assert.equal(
    errorFor({ clients: { a: { tokenSha256: HASH, toolboxes: ["*"] }, b: { tokenSha256: HASH.toUpperCase(), toolboxes: ["dev"] } } }),
    "Invalid configuration at serve.clients.b.tokenSha256: expected a token of its own: client 'a' has this one",
  );
});

test("serve: a token is a ${VAR} reference, never written out; the error does not quote it", () => {
  for (const token of ["hunter2-literal", "${T:-hunter2-literal}", "x${T}"]) {
    const message = errorFor({ clients: { c: { token, toolboxes: ["*"] } } });
    assert.equal(message, `Invalid configuration at serve.clients.c.token: expected a reference to an environment variable such as "\${CI_TOKEN}" (or the token's SHA-256 in 'tokenSha256')`);
    assert.ok(!message.includes("hunter2"));
  }
  assert.equal(errorFor({ clients: { c: { tokenSha256: "abc", toolboxes: ["*"] } } }), "Invalid configuration at serve.clients.c.tokenSha256: expected the token's SHA-256 as 64 hex digits");
});

test("serve: a token variable unset or empty refuses that client alone, and says why", async () => {
  const data = withServe({ clients: { ci: { token: "${CI_TOKEN}", toolboxes: ["*"] }, bob: { token: "${BOB}", toolboxes: ["*"] } } });
  const unset = (await loadJson(data, { BOB: "b" })).config.serve!.clients;
  assert.deepEqual(unset.ci, { toolboxes: "*", unreadable: "Environment variable CI_TOKEN is not set (used at serve.clients.ci.token)" });
  assert.deepEqual(unset.bob, { toolboxes: "*", token: "b" });
  const empty = (await loadJson(data, { CI_TOKEN: " ", BOB: "b" })).config.serve!.clients.ci;
  assert.equal(empty.unreadable, "Invalid configuration at serve.clients.ci.token: the token is empty after expanding environment variables");
  assert.equal(empty.token, undefined);
});

test("serve: shapes of oauth, allowedOrigins and sessionIdleMinutes; unknown keys named", () => {
  const oauth = { issuer: "https://idp.example.com", jwksUri: "https://idp.example.com/jwks", audience: ["https://wb.example.com/mcp"] };
  assert.equal(errorFor({ oauth: { ...oauth, jwksUri: "http://idp.example.com/jwks" } }), "Invalid configuration at serve.oauth.jwksUri: expected an https URL (http only on loopback)");
  assert.equal(validateConfig(withServe({ oauth: { ...oauth, jwksUri: "http://127.0.0.1:8/jwks" } })).serve?.oauth?.jwksUri, "http://127.0.0.1:8/jwks");
  assert.equal(
    errorFor({ oauth: { ...oauth, audience: [] } }),
    "Invalid configuration at serve.oauth.audience: expected an array of one or more audiences (the URLs clients use for this server)",
  );
  assert.equal(errorFor({ oauth: { issuer: "x", jwksUri: oauth.jwksUri } }), "Invalid configuration at serve.oauth.audience: expected an array of one or more audiences (the URLs clients use for this server)");
  assert.equal(
    errorFor({ allowedOrigins: ["https://app.example.com/"] }),
    'Invalid configuration at serve.allowedOrigins: expected an array of origins such as "https://app.example.com" (no path)',
  );
  assert.equal(errorFor({ sessionIdleMinutes: 0 }), "Invalid configuration at serve.sessionIdleMinutes: expected a positive integer of minutes (at most 35791)");
  assert.equal(errorFor({ client: {} }), "Invalid configuration at serve: unknown key 'client' (did you mean 'clients'?)");
  assert.equal(errorFor([]), "Invalid configuration at serve: expected an object");
});

test("serve: a client's name is one path segment (it is \${WORKBENCH_CLIENT} in file paths)", () => {
  for (const name of ["..", "a/b", "a\\b", "tab\there"]) {
    assert.equal(
      errorFor({ clients: { [name]: { tokenSha256: HASH, toolboxes: ["*"] } } }),
      `Invalid configuration at serve.clients[${JSON.stringify(name)}]: expected a client name without '/', '\\' or control characters, and not '.' or '..'`,
    );
  }
  assert.deepEqual(Object.keys(validateConfig(withServe({ clients: { "alice@example.com": { tokenSha256: HASH, toolboxes: ["*"] } } })).serve!.clients), ["alice@example.com"]);
});

test("serve: 'local' names no client: it is the user over stdio, whose processes and files it would share", () => {
  assert.equal(
    errorFor({ clients: { local: { tokenSha256: HASH, toolboxes: ["*"] } } }),
    "Invalid configuration at serve.clients.local: expected another name: 'local' is the user over stdio and of the subcommands",
  );
});
