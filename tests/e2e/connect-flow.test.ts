/**
 * "Connect your account" end to end (issue 49 §3), through `serve --http` with the official SDK
 * clients of both protocol revisions: a member who lacks a secret a server names
 * (`${client:API_TOKEN}`) is asked within the call, by a URL elicitation, to open a page of the
 * workbench and paste it; the page keeps it encrypted (the file holds no clear value), the call goes
 * on with the member's value, the elicitation is said complete, `secrets list` shows its name and
 * `secrets forget` removes it. A client without URL elicitation gets the page's address in the
 * error; a page is used once, and refuses a form sent from another origin.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { Client, ElicitationCompleteNotificationSchema, ElicitRequestSchema } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { type HttpFixture, startHttpFixture } from "../helpers/http-fixture.ts";
import { runCli } from "../helpers/cli.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";
import { fx } from "../helpers/toolbox.ts";

const TOKENS = { alice: "alice-token-0123456789", bob: "bob-token-9876543210", carol: "carol-token-5555555555", dave: "dave-token-4444444444" };
const PROVIDED = { alice: "alice-provided-value-111", bob: "bob-provided-value-222", carol: "carol-provided-value-333", dave: "dave-provided-value-444" };
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const TIMEOUT = { timeout: 60_000 };
const env = {
  ALICE_TOKEN: TOKENS.alice,
  BOB_TOKEN: TOKENS.bob,
  CAROL_TOKEN: TOKENS.carol,
  DAVE_TOKEN: TOKENS.dave,
  WORKBENCH_SECRETS_KEY: randomBytes(32).toString("base64"),
  WORKBENCH_AUTH_DIR: `${tempDir()}/auth`,
};
let remote: HttpFixture;
let wb: HttpWorkbench;

before(async () => {
  remote = await startHttpFixture();
  wb = await startHttpWorkbench({
    toolboxes: {
      dev: {
        description: "Dev tools",
        mcpServers: {
          remote: { type: "http", url: remote.url("/mcp"), headers: { "X-Member-Token": "${client:API_TOKEN}" } },
          // A stdio server, started for each member with their value, that reports (as digests) what it was given.
          own: fx("own", {}, { MEMBER_VALUE: "${client:API_TOKEN}", FIXTURE_DIGESTS: "MEMBER_VALUE" }),
        },
      },
    },
    serve: {
      clients: Object.fromEntries(Object.keys(TOKENS).map((name) => [name, { token: `\${${name.toUpperCase()}_TOKEN}`, toolboxes: ["*"] }])),
    },
  }, env);
});

after(async () => {
  const code = await wb?.stop();
  await remote?.stop();
  removeTempDirs();
  assert.equal(code, 0, wb?.stderr());
});

type Member = keyof typeof TOKENS;
const headers = (member: Member) => ({ requestInit: { headers: { Authorization: `Bearer ${TOKENS[member]}` } } });
const call = { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "remote", name: "headers" }, arguments: { name: "x-member-token" } } };
const textOf = (result: Record<string, unknown>) => ({
  text: (result.content as { text: string }[]).map((item) => item.text).join(""),
  isError: result.isError === true,
});

/** The user at the page: it shows the form for the secret, and keeps what is pasted. */
async function provide(url: string, value: string): Promise<void> {
  const page = await fetch(url);
  const html = await page.text();
  assert.equal(page.status, 200, html);
  assert.match(html, /Provide your 'API_TOKEN'/);
  assert.equal(page.headers.get("cache-control"), "no-store");
  assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
  const sent = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ value }) });
  assert.match(await sent.text(), /Saved/);
  assert.equal(sent.status, 200);
}

/** Every request the server got carried one member's provided value (never none); these include `member`'s. */
function assertOwn(text: string, member: Member): void {
  const seen = JSON.parse(text) as string[];
  const provided = new Set(Object.values(PROVIDED).map(sha256));
  assert.ok(seen.every((digest) => provided.has(digest)), `only provided values: ${text}`);
  assert.ok(seen.includes(sha256(PROVIDED[member])), `${member}'s own value`);
}

interface Asked {
  questions: Record<string, unknown>[];
  completed: string[];
  pages: Promise<void>[];
}

/** A member on the SDK 1.32 client (2025-11-25), with URL elicitation: it opens each page and pastes `value`. */
async function legacy(member: Member, asked: Asked): Promise<{
  opened: string;
  use(): Promise<{ text: string; isError: boolean }>;
  env(): Promise<{ FIXTURE_DIGESTS_OF: Record<string, string> }>;
  close(): Promise<void>;
}> {
  const client = new Client({ name: member, version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.questions.push(request.params);
    if (request.params.mode === "url") asked.pages.push(provide(request.params.url, PROVIDED[member]));
    return { action: "accept" };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    asked.completed.push(notification.params.elicitationId);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), headers(member)));
  const opened = textOf(await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, undefined, TIMEOUT)).text;
  const env = { name: "use_tool", arguments: { tool: { toolbox: "dev", server: "own", name: "env" }, arguments: {} } };
  return {
    opened,
    use: async () => textOf(await client.callTool(call, undefined, TIMEOUT)),
    env: async () => JSON.parse(textOf(await client.callTool(env, undefined, TIMEOUT)).text),
    close: () => client.close(),
  };
}

test("connect: a 2025-11-25 member is asked within the call, provides the secret on the page, and the call goes on with it", TIMEOUT, async () => {
  const asked: Asked = { questions: [], completed: [], pages: [] };
  const alice = await legacy("alice", asked);
  try {
    // Asked as open_toolbox started its servers (one question: both need the same secret); the toolbox opened with them.
    assert.equal(asked.questions.length, 1);
    assert.match(alice.opened, /"servers_connected":2/);
    assert.equal((await alice.env()).FIXTURE_DIGESTS_OF.MEMBER_VALUE, sha256(PROVIDED.alice), "the stdio server got alice's value");
    const { text, isError } = await alice.use();
    assert.equal(isError, false, text);
    await Promise.all(asked.pages);
    assertOwn(text, "alice");
    const [question] = asked.questions;
    assert.equal(question.mode, "url");
    assert.match(String(question.url), new RegExp(`^${new URL(wb.url).origin}/connect/[A-Za-z0-9_-]{43}$`));
    assert.match(String(question.message), /Server 'remote' \(toolbox 'dev'\) needs your secret 'API_TOKEN'/);
    assert.deepEqual(asked.completed, [question.elicitationId], "the elicitation is said complete");
    // A page is used once.
    assert.equal((await fetch(String(question.url))).status, 404);
    // Kept encrypted: the file holds neither the value nor its base64.
    const file = readFileSync(`${env.WORKBENCH_AUTH_DIR}/member-secrets.json`, "utf8");
    for (const form of [PROVIDED.alice, btoa(PROVIDED.alice)]) assert.equal(file.includes(form), false);
    assert.equal(wb.stderr().includes(PROVIDED.alice), false, "never in the log");
    // A second call asks nothing: the server runs with it.
    assert.equal((await alice.use()).isError, false);
    assert.equal(asked.questions.length, 1);
  } finally {
    await alice.close();
  }
});

test("connect: a 2026-07-28 member is asked as an input request of the call; never given another's value", TIMEOUT, async () => {
  const pages: Promise<void>[] = [];
  const client = new V2Client({ name: "bob", version: "2.0.0" }, {
    capabilities: { elicitation: { url: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  client.setRequestHandler("elicitation/create", (request) => {
    const params = request.params as { mode?: string; url?: string };
    if (params.mode === "url") pages.push(provide(params.url!, PROVIDED.bob));
    return { action: "accept" };
  });
  await client.connect(new V2HttpTransport(new URL(wb.url), headers("bob")));
  try {
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, TIMEOUT);
    const { text, isError } = textOf(await client.callTool(call, TIMEOUT) as Record<string, unknown>);
    assert.equal(isError, false, text);
    await Promise.all(pages);
    assert.equal(pages.length, 1, "asked once");
    assertOwn(text, "bob");
  } finally {
    await client.close();
  }
});

test("connect: a client without URL elicitation is not given the page (it would reach the model); a form from another origin is refused", TIMEOUT, async () => {
  const plain = new Client({ name: "carol", version: "1.0.0" });
  await plain.connect(new StreamableHTTPClientTransport(new URL(wb.url), headers("carol")));
  try {
    const opened = textOf(await plain.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } }, undefined, TIMEOUT));
    assert.equal(opened.isError, true);
    const first = textOf(await plain.callTool(call, undefined, TIMEOUT));
    assert.equal(first.isError, true);
    for (const text of [opened.text, first.text]) {
      assert.match(text, /Secret 'API_TOKEN' is not set for client 'carol': this client cannot open the page to do so \(it declared no URL elicitation\)/);
      assert.doesNotMatch(text, /\/connect\//);
    }
  } finally {
    await plain.close();
  }
  // The same member on a client that opens URLs: a form sent from another page is refused, then the page is used.
  const asked: Asked = { questions: [], completed: [], pages: [] };
  const client = new Client({ name: "carol", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    if (request.params.mode !== "url") return { action: "decline" };
    const url = request.params.url;
    asked.pages.push((async () => {
      const foreign = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
        body: new URLSearchParams({ value: "planted-value-000" }),
      });
      assert.equal(foreign.status, 403);
      await foreign.body?.cancel();
      await provide(url, PROVIDED.carol);
    })());
    return { action: "accept" };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), headers("carol")));
  try {
    const again = textOf(await client.callTool(call, undefined, TIMEOUT));
    await Promise.all(asked.pages);
    assert.equal(again.isError, false, again.text);
    assertOwn(again.text, "carol");
  } finally {
    await client.close();
  }
});

test("connect: calls at the same time that need the same secret share one question; behind a proxy ending TLS, the page is https", TIMEOUT, async () => {
  const asked: Asked = { questions: [], completed: [], pages: [] };
  const client = new Client({ name: "dave", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.questions.push(request.params);
    if (request.params.mode !== "url") return { action: "decline" };
    // The proxy said https: the member is sent to https://; the test, which is the proxy too, goes on in plain http.
    assert.match(request.params.url, /^https:\/\/127\.0\.0\.1:\d+\/connect\//);
    asked.pages.push(provide(request.params.url.replace(/^https:/, "http:"), PROVIDED.dave));
    return { action: "accept" };
  });
  const proxied = { requestInit: { headers: { Authorization: `Bearer ${TOKENS.dave}`, "X-Forwarded-Proto": "https" } } };
  await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), proxied));
  try {
    const results = await Promise.all([1, 2, 3].map(() => client.callTool(call, undefined, TIMEOUT)));
    await Promise.all(asked.pages);
    for (const result of results.map(textOf)) assert.equal(result.isError, false, result.text);
    assert.equal(asked.questions.length, 1, "one question for the three calls");
  } finally {
    await client.close();
  }
});

test("connect: 'secrets list' names what members provided, never a value; 'secrets forget' removes it", TIMEOUT, async () => {
  const cli = (args: string[]) => runCli(["secrets", ...args, "--config", wb.configPath], { env });
  const listed = await cli(["list"]);
  assert.equal(listed.code, 0, listed.stderr);
  for (const member of ["alice", "bob", "carol"]) assert.match(listed.stdout, new RegExp(`${member}\\s+API_TOKEN`));
  for (const value of Object.values(PROVIDED)) assert.equal(listed.stdout.includes(value), false);
  const forgot = await cli(["forget", "--client", "alice"]);
  assert.equal(forgot.code, 0, forgot.stderr);
  assert.match(forgot.stdout + forgot.stderr, /Forgot secret 'API_TOKEN' of client 'alice'/);
  const after = await cli(["list"]);
  assert.doesNotMatch(after.stdout, /alice/);
  assert.match(after.stdout, /bob\s+API_TOKEN/);
});
