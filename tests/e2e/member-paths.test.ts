/**
 * Each member acts as themselves on every path (issue 49, item 6), through `serve --http` with the
 * official SDK clients of both revisions: a server whose `${client:API_TOKEN}` is each member's own
 * value says which value it was given in every answer and description (the start of its SHA-256).
 * Prompts, resources, completions, `search_tools`' background listing, and `run_code`'s inner calls
 * each reach the member's own process; a member without the secret gets nothing listed or started
 * for them, and never another's.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { Client } from "../helpers/sdk.ts";
import { type HttpWorkbench, startHttpWorkbench } from "../helpers/http-workbench.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";

const TOKENS = { alice: "alice-token-0123456789", bob: "bob-token-9876543210", carol: "carol-token-5555555555" };
const SECRETS = { alice: "alice-secret-value-111", bob: "bob-secret-value-222" };
const labelOf = (secret: string) => `member-${createHash("sha256").update(secret).digest("hex").slice(0, 16)}`;
const LABELS = { alice: labelOf(SECRETS.alice), bob: labelOf(SECRETS.bob) };
const TIMEOUT = { timeout: 60_000 };

const dir = tempDir();
const spawns = `${dir}/spawns.log`;
let wb: HttpWorkbench;

before(async () => {
  wb = await startHttpWorkbench({
    toolSearch: true,
    codeMode: { timeoutMs: 20_000 },
    toolboxes: {
      dev: {
        description: "Dev tools",
        mcpServers: {
          // Not pinned: its descriptions differ by member on purpose, and pins would withhold the second member's
          // (the first member's are pinned; the others' are approved with `approve --client`, tests/e2e/pins.test.ts).
          cat: fixtureServer("catalog-server.ts", {
            pin: false,
            env: {
              MEMBER_VALUE: "${client:API_TOKEN}",
              FIXTURE_LABEL_DIGEST_OF: "MEMBER_VALUE",
              FIXTURE_RESOURCES: "note://a",
              FIXTURE_SPAWN_LOG: spawns,
            },
          }),
          sk: fixtureServer("skills-server.ts", { pin: false, env: { MEMBER_VALUE: "${client:API_TOKEN}", FIXTURE_LABEL_DIGEST_OF: "MEMBER_VALUE" } }),
        },
      },
    },
    serve: {
      clients: {
        alice: { token: "${ALICE_TOKEN}", toolboxes: ["*"], secrets: { API_TOKEN: SECRETS.alice } },
        bob: { token: "${BOB_TOKEN}", toolboxes: ["*"], secrets: { API_TOKEN: SECRETS.bob } },
        carol: { token: "${CAROL_TOKEN}", toolboxes: ["*"] },
      },
    },
  }, { WORKBENCH_CACHE_DIR: `${dir}/cache`, ALICE_TOKEN: TOKENS.alice, BOB_TOKEN: TOKENS.bob, CAROL_TOKEN: TOKENS.carol });
});

after(async () => {
  const code = await wb?.stop();
  removeTempDirs();
  assert.equal(code, 0, wb?.stderr());
});

const headers = (member: keyof typeof TOKENS) => ({ requestInit: { headers: { Authorization: `Bearer ${TOKENS[member]}` } } });
const textOf = (result: unknown) => ((result as { content?: { text?: string }[] }).content ?? []).map((item) => item.text ?? "").join("");

/** What a member does, the same on either SDK. */
interface Member {
  tool(name: string, args: Record<string, unknown>): Promise<string>;
  prompt(): Promise<string>;
  read(): Promise<string>;
  complete(): Promise<string[]>;
  close(): Promise<void>;
}

const PROMPT = { name: "dev__cat__greet", arguments: { name: "you" } };
const COMPLETE = { ref: { type: "ref/prompt" as const, name: "dev__cat__greet" }, argument: { name: "name", value: "yo" } };

async function legacy(member: keyof typeof TOKENS): Promise<Member> {
  const client = new Client({ name: `${member}-client`, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(wb.url), headers(member)));
  return {
    tool: async (name, args) => textOf(await client.callTool({ name, arguments: args }, undefined, TIMEOUT)),
    prompt: async () => ((await client.getPrompt(PROMPT)).messages[0]!.content as { text: string }).text,
    read: async () => ((await client.readResource({ uri: "note://a" })).contents[0] as { text: string }).text,
    complete: async () => (await client.complete(COMPLETE)).completion.values,
    close: () => client.close(),
  };
}

async function modern(member: keyof typeof TOKENS): Promise<Member> {
  const client = new V2Client({ name: `${member}-client`, version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new V2HttpTransport(new URL(wb.url), headers(member)));
  return {
    tool: async (name, args) => textOf(await client.callTool({ name, arguments: args }, { timeout: 60_000 })),
    prompt: async () => ((await client.getPrompt(PROMPT)).messages[0]!.content as { text: string }).text,
    read: async () => ((await client.readResource({ uri: "note://a" })).contents[0] as { text: string }).text,
    complete: async () => (await client.complete(COMPLETE)).completion.values,
    close: () => client.close(),
  };
}

/** A search that finds the tool: the first lists the member's server in the background, the next ones find it. */
async function found(member: Member): Promise<string> {
  let text = "";
  for (let tries = 0; tries < 100; tries++) {
    text = await member.tool("search_tools", { query: "links to a URI" });
    if (/member-/.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return text;
}

const started = () => existsSync(spawns) ? readFileSync(spawns, "utf8").trim().split("\n").filter(Boolean) : [];

test("members on every path: search_tools lists in the background with the searching member's own value, and a found tool runs in their process", TIMEOUT, async () => {
  // Searched before anything was opened: the search starts each member's own server to list it.
  const alice = await legacy("alice");
  const bob = await modern("bob");
  try {
    const aliceFound = await found(alice);
    const bobFound = await found(bob);
    assert.match(aliceFound, new RegExp(LABELS.alice), aliceFound);
    assert.doesNotMatch(aliceFound, new RegExp(LABELS.bob));
    assert.match(bobFound, new RegExp(LABELS.bob), bobFound);
    assert.doesNotMatch(bobFound, new RegExp(LABELS.alice));
    assert.equal(started().length, 2, "one process per member, started by their own search");
    // The found tool, called without open_toolbox, runs where the search listed it.
    const label = (member: Member) => member.tool("use_tool", { tool: { toolbox: "dev", server: "cat", name: "label" }, arguments: {} });
    assert.equal(await label(alice), LABELS.alice);
    assert.equal(await label(bob), LABELS.bob);
    assert.equal(started().length, 2, "no other process for the call");
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("members on every path: prompts, resources and completions are each member's own server's answers", TIMEOUT, async () => {
  for (const [name, connect] of [["legacy", legacy], ["modern", modern]] as const) {
    const alice = await connect("alice");
    const bob = await connect("bob");
    try {
      assert.equal(await alice.prompt(), `${LABELS.alice}: hello you`, name);
      assert.equal(await bob.prompt(), `${LABELS.bob}: hello you`, name);
      assert.equal(await alice.read(), `${LABELS.alice} read note://a`, name);
      assert.equal(await bob.read(), `${LABELS.bob} read note://a`, name);
      assert.deepEqual(await alice.complete(), [`${LABELS.alice}:yo`], name);
      assert.deepEqual(await bob.complete(), [`${LABELS.bob}:yo`], name);
    } finally {
      await alice.close();
      await bob.close();
    }
  }
});

test("members on every path: a skill is read from the member's own server", TIMEOUT, async () => {
  const alice = await legacy("alice");
  const bob = await modern("bob");
  try {
    const read = (member: Member) =>
      member.tool("use_tool", { tool: { toolbox: "dev", server: "workbench", name: "read_skill" }, arguments: { uri: "skill://dev/sk/refunds/SKILL.md" } });
    const [aliceSkill, bobSkill] = [await read(alice), await read(bob)];
    assert.match(aliceSkill, new RegExp(LABELS.alice), aliceSkill);
    assert.doesNotMatch(aliceSkill, new RegExp(LABELS.bob));
    assert.match(bobSkill, new RegExp(LABELS.bob), bobSkill);
    assert.doesNotMatch(bobSkill, new RegExp(LABELS.alice));
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("members on every path: run_code's inner calls run in the member's own process", TIMEOUT, async () => {
  const alice = await legacy("alice");
  const bob = await modern("bob");
  try {
    const script = `return await tools.cat.label({});`;
    for (const [member, label] of [[alice, LABELS.alice], [bob, LABELS.bob]] as const) {
      const ran = JSON.parse(await member.tool("run_code", { toolbox: "dev", code: script })) as { result: unknown };
      assert.equal(ran.result, label, JSON.stringify(ran));
    }
  } finally {
    await alice.close();
    await bob.close();
  }
});

test("members on every path: a member without the secret gets nothing listed, started or answered by another's server", TIMEOUT, async () => {
  const before = started().length;
  for (const connect of [legacy, modern]) {
    const carol = await connect("carol");
    try {
      const found = await carol.tool("search_tools", { query: "links to a URI" });
      assert.doesNotMatch(found, /member-/, found);
      await assert.rejects(carol.prompt(), /Secret 'API_TOKEN' is not set for client 'carol'|not found/);
      await assert.rejects(carol.read(), /Secret 'API_TOKEN' is not set for client 'carol'|not found/);
    } finally {
      await carol.close();
    }
  }
  assert.equal(started().length, before, "nothing started for carol");
});
