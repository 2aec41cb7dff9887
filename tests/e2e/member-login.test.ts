/**
 * Each member logs in as themselves (issue 49 §3): over `serve --http`, a remote server that needs
 * OAuth and that nothing in the file gives a token is logged in to by each member on their own, the
 * call asking with a URL elicitation to the authorization server's page (the official SDK clients
 * of both protocol revisions; the browser played by fetch, which follows the redirects back to the
 * workbench's /connect/callback). Each member's connection carries their own token and no other's;
 * the logins are kept in the member vault, never in the operator's token files; `secrets list`
 * names them.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { Client, ElicitRequestSchema } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { type HttpFixture, startHttpFixture } from "../helpers/http-fixture.ts";
import { runCli } from "../helpers/cli.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

const TOKENS = { alice: "alice-token-0123456789", bob: "bob-token-9876543210" };
const TIMEOUT = { timeout: 60_000 };
const env = {
  ALICE_TOKEN: TOKENS.alice,
  BOB_TOKEN: TOKENS.bob,
  WORKBENCH_SECRETS_KEY: randomBytes(32).toString("base64"),
  WORKBENCH_AUTH_DIR: `${tempDir()}/auth`,
};
let remote: HttpFixture;
let wb: HttpWorkbench;

before(async () => {
  remote = await startHttpFixture({ FIXTURE_OAUTH: "1" });
  wb = await startHttpWorkbench({
    toolboxes: { dev: { description: "Dev tools", mcpServers: { linear: { type: "http", url: remote.url("/mcp") } } } },
    serve: { clients: { alice: { token: "${ALICE_TOKEN}", toolboxes: ["*"] }, bob: { token: "${BOB_TOKEN}", toolboxes: ["*"] } } },
  }, env);
});

after(async () => {
  const code = await wb?.stop();
  await remote?.stop();
  removeTempDirs();
  assert.equal(code, 0, wb?.stderr());
});

const headers = (member: keyof typeof TOKENS) => ({ requestInit: { headers: { Authorization: `Bearer ${TOKENS[member]}` } } });
const use = (name: string) => ({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "linear", name: "headers" }, arguments: { name } } });
const textOf = (result: Record<string, unknown>) => ({
  text: (result.content as { text: string }[]).map((item) => item.text).join(""),
  isError: result.isError === true,
});

/**
 * The member's browser: opens the workbench's page, which sends it on to the authorization server,
 * which approves at once and redirects back to the workbench's callback.
 */
function browse(url: string, pages: Promise<string>[]): void {
  assert.match(url, new RegExp(`^${new URL(wb.url).origin}/connect/[0-9a-f-]{36}$`));
  pages.push(fetch(url).then((response) => response.text()));
}

/** The digests of the Authorization each request to the server carried, by the connection it came on. */
async function byConnection(call: (args: ReturnType<typeof use>) => Promise<Record<string, unknown>>): Promise<Map<string, Set<string>>> {
  const digests = JSON.parse(textOf(await call(use("authorization"))).text) as string[];
  const sessions = JSON.parse(textOf(await call(use("mcp-session-id"))).text) as string[];
  const connections = new Map<string, Set<string>>();
  digests.forEach((digest, at) => sessions[at] !== "missing" && connections.set(sessions[at], (connections.get(sessions[at]) ?? new Set()).add(digest)));
  return connections;
}

test("member login: each member logs in as themselves from the call, and each connection carries its member's token alone", TIMEOUT, async () => {
  const pages: Promise<string>[] = [];
  const alice = new Client({ name: "alice", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  alice.setRequestHandler(ElicitRequestSchema, (request) => {
    if (request.params.mode === "url") browse(request.params.url, pages);
    return { action: "accept" };
  });
  const bob = new V2Client({ name: "bob", version: "2.0.0" }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  bob.setRequestHandler("elicitation/create", (request) => {
    const params = request.params as { mode?: string; url?: string };
    if (params.mode === "url") browse(params.url!, pages);
    return { action: "accept" };
  });
  await alice.connect(new StreamableHTTPClientTransport(new URL(wb.url), headers("alice")));
  await bob.connect(new V2HttpTransport(new URL(wb.url), headers("bob")));
  try {
    const opened = textOf(await alice.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, undefined, TIMEOUT));
    assert.match(opened.text, /"servers_connected":1/, opened.text);
    const bobCall = textOf(await bob.callTool(use("authorization"), TIMEOUT) as Record<string, unknown>);
    assert.equal(bobCall.isError, false, bobCall.text);
    for (const page of await Promise.all(pages)) assert.match(page, /Logged in/);
    assert.equal(pages.length, 2, "each member logged in once");
    const stats = await (await fetch(remote.url("/oauth-stats"))).json() as { authorizations: number };
    assert.equal(stats.authorizations, 2);
    const connections = await byConnection((args) => alice.callTool(args, undefined, TIMEOUT) as Promise<Record<string, unknown>>);
    const tokens = [...connections.values()].map((set) => [...set].filter((digest) => digest !== "missing"));
    assert.ok(connections.size >= 2, "a connection per member");
    for (const one of tokens) assert.ok(one.length <= 1, "a connection is never given two members' tokens");
    assert.equal(new Set(tokens.flat()).size, 2, "two members, two tokens");
    // The operator's token files hold nothing of theirs: only the member vault does.
    assert.deepEqual(readdirSync(env.WORKBENCH_AUTH_DIR), ["member-secrets.json"]);
  } finally {
    await alice.close();
    await bob.close();
  }
  const listed = await runCli(["secrets", "list", "--config", wb.configPath], { env });
  assert.match(listed.stdout, /alice\s+LOGIN_[0-9a-f]{20}/);
  assert.match(listed.stdout, /bob\s+LOGIN_[0-9a-f]{20}/);
});
