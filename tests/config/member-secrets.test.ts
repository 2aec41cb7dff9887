/**
 * `${client:NAME}` and `serve.clients.<name>.secrets` in the configuration (issue 49): loading
 * keeps the reference in a server's headers, env, args and url (never reading the environment's
 * NAME), refuses it anywhere else and with `"share": "all"`; a client's secrets are expanded, one
 * that cannot be read left out with why; a member's values go in when a server starts for them,
 * and a member without one gets the server unconfigured with a message that says where to set it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RemoteServerConfig, StdioServerConfig } from "../../src/config/index.ts";
import { LOCAL_CLIENT_NAME } from "../../src/config/client-variable.ts";
import { memberValuesOf, secretNamesOf, usesSecrets, withSecrets } from "../../src/config/member-secrets.ts";
import { secretVariables } from "../../src/config/secret-variables.ts";
import { validateConfig } from "../../src/config/index.ts";
import { IN_FILE, loadJson, rejectsWithConfigError, withServer } from "./helpers.ts";

test("member secrets: loading keeps ${client:NAME} in headers, url, env and args, whatever the environment holds", async () => {
  const env = { API_TOKEN: "from-the-environment", HOST: "mcp.example.com" };
  const remote = (await loadJson(withServer({
    url: "https://${HOST}/${client:TENANT}/mcp",
    headers: { Authorization: "Bearer ${client:API_TOKEN}" },
  }), env)).config.toolboxes.dev.mcpServers.fs as RemoteServerConfig;
  assert.equal(remote.url, "https://mcp.example.com/${client:TENANT}/mcp");
  assert.deepEqual(remote.headers, { Authorization: "Bearer ${client:API_TOKEN}" });
  assert.deepEqual(secretNamesOf(remote), ["TENANT", "API_TOKEN"]);
  const stdio = (await loadJson(withServer({ command: "x", args: ["--key=${client:API_TOKEN}"], env: { KEY: "${client:API_TOKEN}" } }), env))
    .config.toolboxes.dev.mcpServers.fs as StdioServerConfig;
  assert.deepEqual(stdio.args, ["--key=${client:API_TOKEN}"]);
  assert.deepEqual(stdio.env, { KEY: "${client:API_TOKEN}" });
  assert.equal(usesSecrets(stdio), true);
});

test("member secrets: anywhere else, or with \"share\": \"all\", a configuration error", async () => {
  const places: [Record<string, unknown>, string, string][] = [
    [{ command: "${client:API_TOKEN}" }, "command", "${client:NAME} is only for a server's headers, env, args and url"],
    [{ command: "x", cwd: "/home/${client:USER}" }, "cwd", "${client:NAME} is only for a server's headers, env, args and url"],
    [{ url: "https://a.example/mcp", oauth: { clientSecret: "${client:S}" } }, "oauth.clientSecret", "${client:NAME} is only for a server's headers, env, args and url"],
    [{ command: "x", env: { K: "${client:K}" }, share: "all" }, "share", '"all" cannot be used with ${client:NAME}: one connection would serve every member'],
    [{ url: "https://a.example/mcp", headers: { K: "${client:K}" }, share: "all" }, "share", '"all" cannot be used with ${client:NAME}: one connection would serve every member'],
  ];
  for (const [server, at, why] of places) {
    await rejectsWithConfigError(loadJson(withServer(server)), IN_FILE + `Invalid configuration at toolboxes.dev.mcpServers.fs.${at}: ${why}`);
  }
  await rejectsWithConfigError(
    loadJson({ ...withServer({ command: "x" }) as object, serve: { clients: { a: { token: "${A}", toolboxes: ["*"], secrets: { "1x": "v" } } } } }),
    IN_FILE + "Invalid configuration at serve.clients.a.secrets.1x: expected a secret's name as ${client:NAME} writes it: letters, digits and '_', not first a digit",
  );
});

test("member secrets: a client's secrets are expanded; one unset or empty is left out, why kept", async () => {
  const { config } = await loadJson({
    ...withServer({ command: "x" }) as object,
    serve: { clients: { a: { token: "${A}", toolboxes: ["*"], secrets: { GIVEN: "literal", FROM_ENV: "${A_GH}", UNSET: "${NOPE}", EMPTY: "${EMPTY}" } } } },
  }, { A: "token-a-123", A_GH: "gh-value", EMPTY: "" });
  const client = config.serve!.clients.a;
  assert.deepEqual(client.secrets, { GIVEN: "literal", FROM_ENV: "gh-value" });
  assert.match(client.secretsUnreadable!.UNSET, /Environment variable NOPE is not set \(used at serve\.clients\.a\.secrets\.UNSET\)/);
  assert.match(client.secretsUnreadable!.EMPTY, /serve\.clients\.a\.secrets\.EMPTY: the secret is empty after expanding environment variables/);
  // The variables a client's secrets read are withheld from a server that inherits the environment, as is the local user's NAME,
  // a token exchange's client secret, and the key every member's provided secrets are sealed with.
  const tokenExchange = { tokenEndpoint: "https://idp.example/token", audience: "a", clientId: "wb", clientSecret: "${EX_SECRET}" };
  const written = validateConfig({
    toolboxes: {
      dev: { mcpServers: { fs: { command: "x", env: { K: "${client:LOCAL_KEY}" } }, api: { url: "https://api.example/mcp", auth: { tokenExchange } } } },
      ops: { mcpServers: { linear: { url: "https://linear.example/mcp", oauth: { clientId: "wb", clientSecret: "${OAUTH_SECRET}" } } } },
    },
    serve: { clients: { a: { token: "${A}", toolboxes: ["*"], secrets: { GH: "${A_GH}" } } } },
  });
  assert.deepEqual([...secretVariables(written)].sort(), ["A", "A_GH", "EX_SECRET", "LOCAL_KEY", "OAUTH_SECRET", "WORKBENCH_SECRETS_KEY"]);
});

test("member secrets: a member's values go in where a server starts for them; one missing leaves it unconfigured, saying where to set it", () => {
  const remote: RemoteServerConfig = {
    transport: "http",
    url: "https://mcp.example.com/${client:TENANT}",
    headers: { Authorization: "Bearer ${client:API_TOKEN}", Accept: "application/json" },
  } as unknown as RemoteServerConfig;
  const filled = withSecrets(remote, "alice", { values: { TENANT: "acme", API_TOKEN: "alice-key" } });
  assert.equal(filled.url, "https://mcp.example.com/acme");
  assert.deepEqual(filled.headers, { Authorization: "Bearer alice-key", Accept: "application/json" });
  assert.deepEqual(memberValuesOf(filled), ["acme", "alice-key"]);
  assert.equal(Object.keys(filled).includes("memberValues"), false, "not enumerable: never printed with the configuration");
  assert.equal(withSecrets(remote, "bob", { values: { TENANT: "acme", API_TOKEN: "" } }).unconfigured,
    `Secret 'API_TOKEN' is not set for client 'bob': set serve.clients.bob.secrets.API_TOKEN in the configuration (a value or "\${VAR}")`);
  assert.equal(withSecrets(remote, "carol", { values: { TENANT: "acme" }, unreadable: { API_TOKEN: "Environment variable X is not set" } }).unconfigured,
    "Secret 'API_TOKEN' of client 'carol' cannot be read: Environment variable X is not set");
  assert.equal(withSecrets(remote, "sub-of-a-jwt", { values: {}, configured: false }).unconfigured,
    "Secret 'TENANT' is not set for client 'sub-of-a-jwt': secrets are set for the clients of serve.clients, and a client signed in with OAuth is none");
  assert.equal(withSecrets(remote, LOCAL_CLIENT_NAME, { values: { TENANT: "acme" } }).unconfigured,
    "Secret 'API_TOKEN' is not set: set the environment variable API_TOKEN (the local user's 'API_TOKEN')");
  const plain = { ...remote, url: "https://mcp.example.com/", headers: {} };
  assert.equal(withSecrets(plain, "alice", { values: {} }), plain, "a server without a reference is the same object for every member");
});
