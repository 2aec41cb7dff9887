import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS, validateConfig } from "../../src/config/index.ts";
import { configErrorOf, loadJson, rejectsWithConfigError, withServer, IN_FILE } from "./helpers.ts";

const errorFor = (server: Record<string, unknown>) => configErrorOf(() => validateConfig(withServer(server)));
const serverOf = (server: Record<string, unknown>) => validateConfig(withServer(server)).toolboxes.dev.mcpServers.fs;
const AT_FS = "Invalid configuration at toolboxes.dev.mcpServers.fs";
const URL_ = "http://127.0.0.1:9000/mcp";

test("remote config: type http, sse, or a url alone (auto); transport is the same key", () => {
  assert.equal(serverOf({ type: "http", url: URL_ }).transport, "http");
  assert.equal(serverOf({ type: "sse", url: URL_ }).transport, "sse");
  assert.equal(serverOf({ transport: "sse", url: URL_ }).transport, "sse");
  assert.equal(serverOf({ type: "sse", transport: "sse", url: URL_ }).transport, "sse");
  assert.deepEqual(serverOf({ url: URL_ }), { url: URL_, headers: {}, transport: "auto", ...DEFAULT_SETTINGS });
  assert.equal(serverOf({ type: "stdio", command: "x" }).transport, "stdio");
});

test("remote config: headers and oauth are kept", () => {
  const oauth = { clientId: "id", clientSecret: "s", scopes: ["read"] };
  const server = serverOf({ url: URL_, headers: { "X-A": "1" }, oauth, callTimeoutMs: 5 });
  assert.deepEqual(server, { url: URL_, headers: { "X-A": "1" }, oauth, transport: "auto", ...DEFAULT_SETTINGS, callTimeoutMs: 5 });
});

test("remote config: command, args, env or cwd with url is an error naming the server", () => {
  const expected = (key: string) => `${AT_FS}: '${key}' is for servers started as a command and cannot be used with 'url'`;
  assert.equal(errorFor({ command: "x", url: URL_ }), expected("command"));
  assert.equal(errorFor({ args: [], url: URL_ }), expected("args"));
  assert.equal(errorFor({ env: {}, url: URL_ }), expected("env"));
  assert.equal(errorFor({ cwd: "/", url: URL_ }), expected("cwd"));
  assert.equal(errorFor({ command: "x", headers: {} }), `${AT_FS}: 'command' is for servers started as a command and cannot be used with 'headers'`);
});

test("remote config: neither command nor url is an error at the missing key", () => {
  assert.equal(errorFor({}), `${AT_FS}.command: expected a non-empty string`);
  assert.equal(errorFor({ type: "http" }), `${AT_FS}.url: expected a non-empty string`);
  assert.equal(errorFor({ headers: { A: "b" } }), `${AT_FS}.url: expected a non-empty string`);
  assert.equal(errorFor({ type: "stdio" }), `${AT_FS}.command: expected a non-empty string`);
});

test("remote config: a type that contradicts the keys or the other name is an error", () => {
  assert.equal(errorFor({ type: "http", command: "x" }), `${AT_FS}: 'command' is for servers started as a command and cannot be used with type "http"`);
  assert.equal(errorFor({ type: "stdio", url: URL_ }), `${AT_FS}: 'url' is for remote servers and cannot be used with type "stdio"`);
  assert.equal(errorFor({ type: "http", transport: "sse", url: URL_ }), `${AT_FS}: 'type' ("http") and 'transport' ("sse") disagree`);
});

test("remote config: wrong types of url, headers and oauth keys", () => {
  assert.equal(errorFor({ url: 1 }), `${AT_FS}.url: expected a non-empty string`);
  assert.equal(errorFor({ url: URL_, headers: { A: 1 } }), `${AT_FS}.headers: expected an object of string values`);
  assert.equal(errorFor({ url: URL_, oauth: [] }), `${AT_FS}.oauth: expected an object`);
  assert.equal(errorFor({ url: URL_, oauth: { clientId: "" } }), `${AT_FS}.oauth.clientId: expected a non-empty string`);
  assert.equal(errorFor({ url: URL_, oauth: { scopes: "a b" } }), `${AT_FS}.oauth.scopes: expected an array of strings`);
  assert.equal(errorFor({ url: URL_, oauth: { client_id: "x" } }), `${AT_FS}.oauth: unknown key 'client_id' (did you mean 'clientId'?)`);
});

test("remote config: ${VAR} and ${VAR:-default} expand in url, header values and oauth credentials", async () => {
  const { config } = await loadJson(withServer({
    url: "http://127.0.0.1:${PORT}/mcp?key=${KEY:-none}",
    headers: { Authorization: "Bearer ${TOKEN}", "X-Name": "${NAME:-wb}" },
    oauth: { clientId: "${CID}", clientSecret: "${CSECRET}" },
  }), { PORT: "9001", TOKEN: "t0k3n", CID: "c", CSECRET: "cs" });
  const server = config.toolboxes.dev.mcpServers.fs;
  assert.ok(server.transport === "auto");
  assert.equal(server.url, "http://127.0.0.1:9001/mcp?key=none");
  assert.deepEqual(server.headers, { Authorization: "Bearer t0k3n", "X-Name": "wb" });
  assert.deepEqual(server.oauth, { clientId: "c", clientSecret: "cs" });
});

test("remote config: an unset variable in a header names the header, never a value", async () => {
  const loaded = await loadJson(withServer({ url: "${BASE}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } }));
  assert.equal(
    loaded.config.toolboxes.dev.mcpServers.fs.unconfigured,
    "Environment variable BASE is not set (used at toolboxes.dev.mcpServers.fs.url); " +
      "Environment variable TOKEN is not set (used at toolboxes.dev.mcpServers.fs.headers.Authorization)",
  );
});

test("remote config: a url that is not http(s) after expansion is an error that does not quote it", async () => {
  const secret = "s3cr3t-value";
  for (const url of ["ftp://u:" + secret + "@host/x", "${RAW}"]) {
    await rejectsWithConfigError(
      loadJson(withServer({ url }), { RAW: `not a url ${secret}` }),
      IN_FILE + `${AT_FS}.url: expected an http or https URL after expanding environment variables`,
    );
  }
});

test("remote config: oauth grant client_credentials takes a clientId and either a secret or a private key; clientMetadataUrl is for logins", () => {
  const oauthOf = (oauth: Record<string, unknown>) => {
    const server = serverOf({ url: URL_, oauth });
    return "oauth" in server ? server.oauth : undefined;
  };
  const secret = { grant: "client_credentials", clientId: "ci", clientSecret: "s" };
  assert.deepEqual(oauthOf(secret), secret);
  const keyed = oauthOf({ grant: "client_credentials", clientId: "ci", privateKeyJwt: { keyFile: "k.pem" } });
  assert.deepEqual(keyed?.privateKeyJwt, { keyFile: "k.pem", alg: "ES256" }, "ES256 by default");
  assert.equal(errorFor({ url: URL_, oauth: { grant: "client_credentials", clientSecret: "s" } }), `${AT_FS}.oauth: grant "client_credentials" needs 'clientId'`);
  const either = `${AT_FS}.oauth: grant "client_credentials" needs either 'clientSecret' or 'privateKeyJwt'`;
  assert.equal(errorFor({ url: URL_, oauth: { grant: "client_credentials", clientId: "ci" } }), either);
  assert.equal(errorFor({ url: URL_, oauth: { ...secret, privateKeyJwt: { keyFile: "k.pem" } } }), either);
  assert.equal(
    errorFor({ url: URL_, oauth: { ...secret, clientMetadataUrl: "https://a.example/c.json" } }),
    `${AT_FS}.oauth: 'clientMetadataUrl' is for logins, not for grant "client_credentials"`,
  );
  assert.equal(
    errorFor({ url: URL_, oauth: { privateKeyJwt: { keyFile: "k.pem" } } }),
    `${AT_FS}.oauth: 'privateKeyJwt' is for grant "client_credentials"`,
  );
  assert.equal(errorFor({ url: URL_, oauth: { grant: "password" } }), `${AT_FS}.oauth.grant: expected "authorization_code" or "client_credentials"`);
  assert.match(errorFor({ url: URL_, oauth: { grant: "client_credentials", clientId: "c", privateKeyJwt: { keyFile: "k", alg: "HS256" } } }), /oauth\.privateKeyJwt\.alg: expected one of "ES256", /);
});

test("remote config: clientMetadataUrl must be an https URL with a path, after expanding variables", async () => {
  const { config } = await loadJson(withServer({ url: URL_, oauth: { clientMetadataUrl: "https://${HOST}/client.json" } }), { HOST: "a.example" });
  const server = config.toolboxes.dev.mcpServers.fs;
  assert.equal("oauth" in server ? server.oauth?.clientMetadataUrl : undefined, "https://a.example/client.json");
  for (const url of ["http://a.example/client.json", "https://a.example/", "not a url"]) {
    await rejectsWithConfigError(
      loadJson(withServer({ url: URL_, oauth: { clientMetadataUrl: url } })),
      IN_FILE + "Invalid configuration at toolboxes.dev.mcpServers.fs.oauth.clientMetadataUrl: expected an https URL with a path after expanding environment variables",
    );
  }
});

test("remote config: auth.tokenExchange is kept, expanded, and goes with nothing else that gives the server a token", async () => {
  const exchange = { tokenEndpoint: "https://idp.example/token", audience: "https://api.example", clientId: "wb", clientSecret: "${SECRET}" };
  const { config } = await loadJson(withServer({ url: URL_, auth: { tokenExchange: exchange } }), { SECRET: "s3cret" });
  const server = config.toolboxes.dev.mcpServers.fs;
  assert.deepEqual("auth" in server && server.auth, { tokenExchange: { ...exchange, clientSecret: "s3cret" } });
  const at = `${AT_FS}.auth`;
  const tokenExchange = { tokenEndpoint: "https://idp.example/token", audience: "a", clientId: "wb" };
  assert.equal(errorFor({ url: URL_, auth: { tokenExchange }, oauth: {} }), `${at}: 'tokenExchange' and 'oauth' both get the server a token: use one`);
  assert.equal(
    errorFor({ url: URL_, auth: { tokenExchange }, headers: { authorization: "Bearer x" } }),
    `${at}: 'tokenExchange' gives the server each member's token: headers.authorization cannot be sent beside it`,
  );
  assert.match(errorFor({ url: URL_, auth: { tokenExchange }, share: "all" }), /'tokenExchange' gets a token per member: "share": "all"/);
  assert.equal(errorFor({ url: URL_, auth: { tokenExchange: { audience: "a", clientId: "wb" } } }), `${at}.tokenExchange.tokenEndpoint: expected a non-empty string`);
  assert.equal(errorFor({ command: "x", auth: { tokenExchange } }), `${AT_FS}: 'command' is for servers started as a command and cannot be used with 'auth'`);
  // The endpoint gets each member's token: https, or http on loopback only.
  const plain = withServer({ url: URL_, auth: { tokenExchange: { ...tokenExchange, tokenEndpoint: "http://idp.example/token" } } });
  await rejectsWithConfigError(
    loadJson(plain),
    `${IN_FILE}${AT_FS}.auth.tokenExchange.tokenEndpoint: expected an https URL (http only on loopback) after expanding environment variables`,
  );
  const loopback = withServer({ url: URL_, auth: { tokenExchange: { ...tokenExchange, tokenEndpoint: "http://127.0.0.1:9/token" } } });
  assert.ok((await loadJson(loopback)).config);
});
