import { test } from "node:test";
import assert from "node:assert/strict";
import { AuthStore, authDir } from "../../src/auth/auth-store.ts";
import { LoginRequired, WorkbenchOAuthProvider } from "../../src/auth/oauth-provider.ts";
import { loginCommand } from "../../src/auth/remote-auth.ts";

test("authDir: WORKBENCH_AUTH_DIR, else the user's config folder of each system", () => {
  assert.equal(authDir({ WORKBENCH_AUTH_DIR: "/x/auth", HOME: "/h" }, "linux"), "/x/auth");
  assert.equal(authDir({ XDG_CONFIG_HOME: "/cfg", HOME: "/h" }, "linux"), "/cfg/mcp-workbench/auth");
  assert.equal(authDir({ HOME: "/h" }, "linux"), "/h/.config/mcp-workbench/auth");
  assert.equal(authDir({ HOME: "/Users/u" }, "darwin"), "/Users/u/Library/Application Support/mcp-workbench/auth");
  assert.equal(authDir({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "windows"), "C:\\Users\\u\\AppData\\Roaming\\mcp-workbench\\auth");
});

/** A store over memory, recording what was written. */
function memoryStore() {
  const files = new Map<string, string>();
  const store = new AuthStore("/auth", {
    readTextFile: (path) => files.has(path) ? Promise.resolve(files.get(path)!) : Promise.reject(new Error("NotFound")),
    writePrivateFile: (path, text) => (files.set(path, text), Promise.resolve()),
  });
  return { store, files };
}

test("AuthStore: one file per server URL, named by host and a digest; unreadable files read as empty", async () => {
  const { store, files } = memoryStore();
  const a = await store.pathFor("http://127.0.0.1:9000/mcp");
  const b = await store.pathFor("http://127.0.0.1:9000/other");
  assert.match(a, /^\/auth\/127\.0\.0\.1_9000-[0-9a-f]{24}\.json$/);
  assert.notEqual(a, b);
  await store.save("http://127.0.0.1:9000/mcp?key=secret", { server: "x", tokens: { access_token: "t", token_type: "Bearer" } });
  const loaded = await store.load("http://127.0.0.1:9000/mcp?key=secret");
  assert.equal(loaded.tokens?.access_token, "t");
  assert.equal(loaded.server, "http://127.0.0.1:9000/mcp?key=***");
  files.set(a, "{not json");
  assert.deepEqual(await store.load("http://127.0.0.1:9000/mcp"), { server: "http://127.0.0.1:9000/mcp" });
});

test("provider (serve mode): no stored client means login required, with the command; it never redirects", async () => {
  const { store } = memoryStore();
  const command = loginCommand("dev", "linear", "/home/u/my config.json");
  assert.equal(command, "mcp-workbench auth dev linear --config '/home/u/my config.json'");
  const provider = new WorkbenchOAuthProvider({ store, serverUrl: "http://127.0.0.1:1/mcp", mode: { kind: "serve", loginCommand: () => command } });
  await assert.rejects(Promise.resolve().then(() => provider.clientInformation()), new LoginRequired(command));
  assert.throws(() => provider.redirectToAuthorization(new URL("http://127.0.0.1:1/authorize")), LoginRequired);
  assert.equal(new LoginRequired(command).message, `login required: run "${command}"`);
});

test("provider (login mode): starts afresh, and registers again for another redirect URL", async () => {
  const { store } = memoryStore();
  const serverUrl = "http://127.0.0.1:1/mcp";
  await store.save(serverUrl, {
    server: serverUrl,
    client: { client_id: "old" },
    redirectUrl: "http://127.0.0.1:5000/callback",
    tokens: { access_token: "a", token_type: "Bearer" },
  });
  const login = (redirectUrl: string) =>
    new WorkbenchOAuthProvider({ store, serverUrl, mode: { kind: "login", redirectUrl, onAuthorizationUrl: () => {} } });
  assert.equal(await login("http://127.0.0.1:5000/callback").tokens(), undefined);
  assert.equal((await login("http://127.0.0.1:5000/callback").clientInformation())?.client_id, "old");
  assert.equal(await login("http://127.0.0.1:6000/callback").clientInformation(), undefined);
});

test("provider: a configured clientId and clientSecret are used as they are", async () => {
  const { store } = memoryStore();
  const provider = new WorkbenchOAuthProvider({
    store,
    serverUrl: "http://127.0.0.1:1/mcp",
    oauth: { clientId: "cid", clientSecret: "cs", scopes: ["read", "write"] },
    mode: { kind: "serve", loginCommand: () => "x" },
  });
  assert.deepEqual(await provider.clientInformation(), { client_id: "cid", client_secret: "cs" });
  assert.equal(provider.clientMetadata.scope, "read write");
});

test("provider (login mode): with clientMetadataUrl, a configured clientId comes after the metadata document and a registration", async () => {
  const { store } = memoryStore();
  const oauth = { clientId: "cid", clientMetadataUrl: "https://a.example/client.json" };
  const redirectUrl = "http://127.0.0.1:5000/callback";
  const provider = new WorkbenchOAuthProvider({
    store,
    serverUrl: "http://127.0.0.1:1/mcp",
    oauth,
    mode: { kind: "login", redirectUrl, onAuthorizationUrl: () => {} },
  });
  assert.equal(provider.clientMetadataUrl, oauth.clientMetadataUrl);
  const discovered = (metadata: Record<string, unknown>) =>
    provider.saveDiscoveryState({
      authorizationServerUrl: "http://127.0.0.1:1",
      authorizationServerMetadata: {
        issuer: "http://127.0.0.1:1",
        authorization_endpoint: "http://127.0.0.1:1/authorize",
        token_endpoint: "http://127.0.0.1:1/token",
        response_types_supported: ["code"],
        ...metadata,
      },
    });
  discovered({ client_id_metadata_document_supported: true });
  assert.equal(await provider.clientInformation(), undefined, "the SDK uses the metadata document");
  discovered({ registration_endpoint: "http://127.0.0.1:1/register" });
  assert.equal(await provider.clientInformation(), undefined, "the SDK registers");
  discovered({});
  assert.deepEqual(await provider.clientInformation(), { client_id: "cid" }, "neither: the configured client");
});

test("provider (serve mode): with clientMetadataUrl and clientId, the client the login used is kept", async () => {
  const { store } = memoryStore();
  const serverUrl = "http://127.0.0.1:1/mcp";
  const oauth = { clientId: "cid", clientMetadataUrl: "https://a.example/client.json" };
  const serve = () => new WorkbenchOAuthProvider({ store, serverUrl, oauth, mode: { kind: "serve", loginCommand: () => "x" } });
  assert.deepEqual(await serve().clientInformation(), { client_id: "cid" }, "nothing stored: the configured client");
  await store.save(serverUrl, { server: serverUrl, client: { client_id: oauth.clientMetadataUrl } });
  assert.deepEqual(await serve().clientInformation(), { client_id: oauth.clientMetadataUrl });
});

test("provider: a step-up asks for the scopes held and the one the server names, each once", async () => {
  const { store } = memoryStore();
  const serverUrl = "http://127.0.0.1:9000/mcp";
  await store.save(serverUrl, { server: serverUrl, tokens: { access_token: "t", token_type: "Bearer", scope: "read" }, scope: "read" });
  const provider = new WorkbenchOAuthProvider({ store, serverUrl, mode: { kind: "serve", loginCommand: (scope) => loginCommand("dev", "linear", "/c.json", scope) } });
  const error = await provider.stepUpRequired("write") as LoginRequired;
  assert.equal(error.scope, "read write");
  assert.equal(error.message, `the server needs the scope "write", which the stored login lacks: run "mcp-workbench auth dev linear --scope 'read write' --config /c.json"`);
  assert.equal((await provider.stepUpRequired("read write") as LoginRequired).scope, "read write");
});
