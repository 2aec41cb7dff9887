/**
 * Each member acts as themselves (issue 49, items 1, 2 and 5), through `serve --http` with the
 * official SDK clients and one token per member: `${client:API_TOKEN}` in a stdio server's env is
 * each member's own value in a process of their own, and in a remote server's header each member's
 * own value on their own connection; a member without the secret gets an error that names it and
 * the key to set, and nothing is started or sent for them (not the workbench's own API_TOKEN
 * either); a member's values come back masked, never in the audit log or the workbench's stderr,
 * and the audit log names the member.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { Client } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { type HttpFixture, startHttpFixture } from "../helpers/http-fixture.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

const TOKENS = { alice: "alice-token-0123456789", bob: "bob-token-9876543210", carol: "carol-token-5555555555" };
const ALICE_SECRET = "alice-secret-value-111";
const BOB_SECRET = "bob-secret-value-222";
/** The workbench's own variable of the secret's name: the local user's, never a member's fallback. */
const CAROL_SECRET = "carol-secret-value-555";
const OPERATOR_SECRET = "operator-secret-value-333";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const TIMEOUT = { timeout: 60_000 };

const dir = tempDir();
const spawns = `${dir}/spawns.log`;
const audit = `${dir}/audit.jsonl`;
let remote: HttpFixture;
let wb: HttpWorkbench;

before(async () => {
  remote = await startHttpFixture();
  wb = await startHttpWorkbench(configWith({}), {
    ALICE_TOKEN: TOKENS.alice,
    BOB_TOKEN: TOKENS.bob,
    CAROL_TOKEN: TOKENS.carol,
    BOB_API_TOKEN: BOB_SECRET,
    API_TOKEN: OPERATOR_SECRET,
  });
});

/** The file, carol given `carol` for her secrets (none at first). */
function configWith(carol: Record<string, string>) {
  return {
    auditLog: audit,
    auditArguments: true,
    toolboxes: {
      dev: {
        description: "Dev tools",
        mcpServers: {
          own: fx("own", {}, { FIXTURE_SPAWN_LOG: spawns, MEMBER_VALUE: "${client:API_TOKEN}", FIXTURE_DIGESTS: "MEMBER_VALUE" }),
          // A server with no secret: the toolbox opens for a member who lacks one, and says why the others failed.
          plain: fx("plain"),
          remote: { type: "http", url: remote.url("/mcp"), headers: { "X-Member-Token": "${client:API_TOKEN}" } },
        },
      },
    },
    serve: {
      clients: {
        alice: { token: "${ALICE_TOKEN}", toolboxes: ["*"], secrets: { API_TOKEN: ALICE_SECRET } },
        bob: { token: "${BOB_TOKEN}", toolboxes: ["*"], secrets: { API_TOKEN: "${BOB_API_TOKEN}" } },
        carol: { token: "${CAROL_TOKEN}", toolboxes: ["*"], secrets: carol },
      },
    },
  };
}

after(async () => {
  const code = await wb?.stop();
  await remote?.stop();
  removeTempDirs();
  assert.equal(code, 0, wb?.stderr());
});

interface Member {
  /** What open_toolbox answered. */
  opened: string;
  use(server: string, name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

const headers = (member: keyof typeof TOKENS) => ({ requestInit: { headers: { Authorization: `Bearer ${TOKENS[member]}` } } });

/** A member on the SDK 1.32 client (2025-11-25). */
async function legacy(member: keyof typeof TOKENS): Promise<Member> {
  const client = new Client({ name: `${member}-client`, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), headers(member)));
  const opened = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
  return {
    opened: (opened.content as { text: string }[]).map((item) => item.text).join(""),
    async use(server, name, args = {}) {
      const result = await client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server, name }, arguments: args } }, undefined, TIMEOUT);
      return { text: (result.content as { text: string }[]).map((item) => item.text).join(""), isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

/** A member on the SDK v2 client pinned to 2026-07-28. */
async function modern(member: keyof typeof TOKENS): Promise<Member> {
  const client = new V2Client({ name: `${member}-client`, version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new V2HttpTransport(new URL(wb.url), headers(member)));
  const opened = await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
  return {
    opened: (opened.content as { text: string }[]).map((item) => item.text).join(""),
    async use(server, name, args = {}) {
      const result = await client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server, name }, arguments: args } }, { timeout: 60_000 });
      return { text: (result.content as { text: string }[]).map((item) => item.text).join(""), isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

type Env = Record<string, string> & { FIXTURE_DIGESTS_OF: Record<string, string> };
async function envOf(member: Member): Promise<Env> {
  const { text, isError } = await member.use("own", "env");
  assert.equal(isError, false, text);
  return JSON.parse(text);
}

const started = () => existsSync(spawns) ? readFileSync(spawns, "utf8").trim().split("\n").filter(Boolean) : [];

test("members: a stdio server's ${client:NAME} is each member's own value, in a process of their own, masked in what comes back", TIMEOUT, async () => {
  const alice = await legacy("alice");
  const bob = await modern("bob");
  try {
    const [aliceEnv, bobEnv] = [await envOf(alice), await envOf(bob)];
    assert.equal(aliceEnv.FIXTURE_DIGESTS_OF.MEMBER_VALUE, sha256(ALICE_SECRET));
    assert.equal(bobEnv.FIXTURE_DIGESTS_OF.MEMBER_VALUE, sha256(BOB_SECRET));
    // What the server says of it comes back masked, to its own member too (though its name says no secret).
    assert.equal(aliceEnv.MEMBER_VALUE, "***");
    assert.equal(bobEnv.MEMBER_VALUE, "***");
    const [alicePid, bobPid] = [(await alice.use("own", "pid")).text, (await bob.use("own", "pid")).text];
    assert.notEqual(alicePid, bobPid, "one process per member");
    assert.deepEqual(started().map((line) => line.split(" ")[1]).sort(), [alicePid, bobPid].sort());
    const echoed = await alice.use("own", "echo", { text: `mine is ${ALICE_SECRET}` });
    assert.equal(echoed.text.includes(ALICE_SECRET), false, echoed.text);
    assert.match(echoed.text, /mine is \*\*\*/);
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("members: a remote server gets each member's own header, on a connection of their own", TIMEOUT, async () => {
  const alice = await legacy("alice");
  const bob = await modern("bob");
  const digestsSeen = async (member: Member) => {
    const { text, isError } = await member.use("remote", "headers", { name: "x-member-token" });
    assert.equal(isError, false, text);
    return JSON.parse(text) as string[];
  };
  try {
    // Alice asks the remote server twice: the requests' member values, then their session ids.
    const values = await digestsSeen(alice);
    assert.ok(values.includes(sha256(ALICE_SECRET)));
    assert.ok((await digestsSeen(bob)).includes(sha256(BOB_SECRET)));
    const { text } = await alice.use("remote", "headers", { name: "mcp-session-id" });
    const sessions = (JSON.parse(text) as string[]).slice(0, values.length);
    assert.equal(values.every((digest) => digest === sha256(ALICE_SECRET) || digest === sha256(BOB_SECRET)), true, "never missing, never another value");
    // Each remote session (the workbench's connection) carried one member's value alone.
    const byConnection = new Map<string, Set<string>>();
    sessions.forEach((session, at) => session !== "missing" && byConnection.set(session, (byConnection.get(session) ?? new Set()).add(values[at])));
    assert.ok(byConnection.size >= 2, "a connection per member");
    for (const members of byConnection.values()) assert.equal(members.size, 1, "a connection is never shared between members");
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("members: one without the secret is told which and where to set it; nothing is started or sent for them", TIMEOUT, async () => {
  const before = started().length;
  const carol = await legacy("carol");
  const carolModern = await modern("carol");
  try {
    for (const member of [carol, carolModern]) {
      assert.match(member.opened, /'own'.*Secret 'API_TOKEN' is not set for client 'carol'/);
      assert.match(member.opened, /'remote'.*Secret 'API_TOKEN' is not set for client 'carol'/);
      for (const server of ["own", "remote"]) {
        const { text, isError } = await member.use(server, server === "own" ? "env" : "headers", { name: "x-member-token" });
        assert.equal(isError, true, text);
        // Serving over HTTP, a member may provide it; a client that cannot open URLs is told so, and not given the page.
        assert.match(text, /Secret 'API_TOKEN' is not set for client 'carol': this client cannot open the page to do so/);
        assert.equal(text.includes(OPERATOR_SECRET), false);
      }
    }
    assert.equal(started().length, before, "no process was started for carol");
    // Alice looks at every request the remote server got: none without a member's value, none with the workbench's.
    const alice = await legacy("alice");
    const seen = JSON.parse((await alice.use("remote", "headers", { name: "x-member-token" })).text) as string[];
    await alice.close();
    assert.equal(seen.includes("missing"), false);
    assert.equal(seen.includes(sha256(OPERATOR_SECRET)), false);
    assert.equal(seen.every((digest) => digest === sha256(ALICE_SECRET) || digest === sha256(BOB_SECRET)), true);
  } finally {
    await carol.close();
    await carolModern.close();
  }
});

test("members: a secret set while serving reaches the member's next call, in the session they have; their sessions go on", TIMEOUT, async () => {
  const carol = await legacy("carol");
  try {
    assert.match((await carol.use("own", "env")).text, /Secret 'API_TOKEN' is not set for client 'carol'/);
    const applied = () => wb.stderr().split("applied the configuration").length;
    const before = applied();
    writeFileSync(wb.configPath, JSON.stringify(configWith({ API_TOKEN: CAROL_SECRET })));
    for (let tries = 0; tries < 100 && applied() === before; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(applied() > before, wb.stderr());
    const serveLine = () => wb.stderr().split("\n").filter((line) => line.includes("Applied the change to 'serve'")).at(-1);
    for (let tries = 0; tries < 100 && serveLine() === undefined; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(serveLine()?.includes("revoked clients ended"), false, "a secret is not who a member is: no session ends");
    const env = await envOf(carol);
    assert.equal(env.FIXTURE_DIGESTS_OF.MEMBER_VALUE, sha256(CAROL_SECRET));
    const seen = JSON.parse((await carol.use("remote", "headers", { name: "x-member-token" })).text) as string[];
    assert.ok(seen.includes(sha256(CAROL_SECRET)));
  } finally {
    await carol.close();
  }
});

test("members: the audit log names the member and holds none of their values; neither does the workbench's stderr", TIMEOUT, () => {
  const lines = readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { client?: string; server: string });
  assert.deepEqual(new Set(lines.map((line) => line.client)), new Set(["alice", "bob", "carol"]));
  for (const text of [readFileSync(audit, "utf8"), wb.stderr()]) {
    for (const secret of [ALICE_SECRET, BOB_SECRET, CAROL_SECRET, OPERATOR_SECRET]) assert.equal(text.includes(secret), false, `${secret} in ${text}`);
  }
});
