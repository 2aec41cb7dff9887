/**
 * Skills for a client that speaks neither resources nor the Skills extension, in a real session (an
 * SDK client over web streams, the skills fixture server on stdio, a real listing cache and lock):
 * search_tools finds an offered skill by its name and description (never a withheld one, from a
 * live list or the cache) and names the URI of its SKILL.md; use_tool's read_skill on the reserved
 * server `workbench` reads a skill's files the way resources/read does (withheld refused, bytes
 * verified against the entry's digest, only files the entry lists). The text of 8 results stays
 * within the search budget (2,400 bytes) with skills among them.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { platform } from "#platform";
import { validateConfig, type WorkbenchConfig } from "../../src/config/index.ts";
import { ListingCache } from "../../src/cache/listing-cache.ts";
import { ServerPool } from "../../src/toolboxes/pool.ts";
import { lockPathFor, PinStore } from "../../src/toolboxes/pin-store.ts";
import { openSession } from "../../src/upstream/session.ts";
import { StreamTransport } from "../../src/transport/stream-transport.ts";
import { utf8Bytes } from "../../src/transport/utf8.ts";
import { presentSearch, type SearchResult } from "../../src/tools/search-tools.ts";
import { type CallToolResult, Client } from "../helpers/sdk.ts";
import { fx } from "../helpers/toolbox.ts";
import { removeTempDirs, tempDir } from "../helpers/workbench.ts";
import { fixtureServer } from "../helpers/runtime.ts";

after(removeTempDirs);

const TIMEOUT = { timeout: 20_000 };
const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
const textOf = (result: CallToolResult) => result.content.map((item) => item.type === "text" ? item.text : "").join("\n");
// deno-lint-ignore no-explicit-any
const results = (result: CallToolResult) => (result.structuredContent as any).results as SearchResult[];
const sha = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

function setup(extraEnv: Record<string, string> = {}) {
  const dir = tempDir();
  const variant = `${dir}/variant`;
  writeFileSync(variant, "base\n");
  const config = validateConfig({
    toolSearch: true,
    toolboxes: {
      dev: { description: "Billing", mcpServers: { a: fixtureServer("skills-server.ts", { env: { FIXTURE_LABEL: "a", FIXTURE_SKILLS_VARIANT_FILE: variant, ...extraEnv } }) } },
      ops: { mcpServers: { fx: fx("ops") } },
    },
  });
  return { dir, variant, config, lock: lockPathFor(`${dir}/workbench-config.json`) };
}

interface Peer {
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  readSkill(uri: string, toolbox?: string): Promise<CallToolResult>;
}

/** One session over a pool of its own, with the cache and the lock in `dir`; everything stopped after. */
async function session(dir: string, config: WorkbenchConfig, lock: string, body: (peer: Peer) => Promise<void>): Promise<void> {
  const cache = new ListingCache({ ...platform, env: { ...platform.env, WORKBENCH_CACHE_DIR: `${dir}/cache` } });
  // As serving names a file that is not the per-user one: the hints say --config.
  const pins = new PinStore(lock, platform, () => {}, { configFile: `${dir}/workbench-config.json` });
  const pool = new ServerPool(config, host, { cache, pins });
  const up = new TransformStream<Uint8Array, Uint8Array>();
  const down = new TransformStream<Uint8Array, Uint8Array>();
  const opened = await openSession(new StreamTransport(up.readable, down.writable), {
    config, configPath: `${dir}/workbench-config.json`, pool, cache, onClose: () => {}, onError: () => {},
  });
  const sdk = new Client({ name: "plain-client", version: "1" });
  await sdk.connect(new StreamTransport(down.readable, up.writable));
  const call = (name: string, args: Record<string, unknown>) => sdk.callTool({ name, arguments: args }, undefined, TIMEOUT) as Promise<CallToolResult>;
  try {
    await body({
      call,
      readSkill: (uri, toolbox = "dev") => call("use_tool", { tool: { toolbox, server: "workbench", name: "read_skill" }, arguments: { uri } }),
    });
  } finally {
    await sdk.close();
    await opened.close();
    await pool.closeAll();
    await cache.flush();
  }
}

test("search_tools finds an offered skill by its name and description: kind skill, its toolbox and server, the URI of its SKILL.md", async () => {
  const { dir, config, lock } = setup();
  await session(dir, config, lock, async (peer) => {
    assert.ok(!(await peer.call("open_toolbox", { toolbox_name: "dev" })).isError);
    assert.ok(!(await peer.call("open_toolbox", { toolbox_name: "ops" })).isError);
  });
  // From the cache: the skills server is not running.
  await session(dir, config, lock, async (peer) => {
    const found = await peer.call("search_tools", { query: "process customer refund requests" });
    assert.equal(found.isError, undefined, textOf(found));
    assert.deepEqual(results(found)[0], {
      kind: "skill",
      toolbox: "dev",
      server: "a",
      name: "refunds",
      description: "a: process customer refund requests per policy",
      uri: "skill://dev/a/refunds/SKILL.md",
    });
    assert.match(textOf(found), /^\d+ results, best first; call a tool with use_tool .*"name": "read_skill"\}, "arguments": \{"uri"\}\}:$/m);
    assert.match(textOf(found), /^skill refunds <skill:\/\/dev\/a\/refunds\/SKILL\.md>: a: process customer refund requests per policy$/m);
    const email = results(await peer.call("search_tools", { query: "write the refund email" }))[0];
    assert.equal(email.kind === "skill" && email.uri, "skill://dev/a/refunds/templates/email/SKILL.md");
    const tools = await peer.call("search_tools", { query: "echo the text back" });
    assert.ok(results(tools).every((result) => result.kind === undefined), "no skill matches: tools alone");
    assert.match(textOf(tools), /^\d+ tools, best first; call one with use_tool/);
  });
});

test("search_tools never finds a withheld skill, from the live list or from the cache", async () => {
  const { dir, variant, config, lock } = setup();
  await session(dir, config, lock, async (peer) => {
    await peer.call("open_toolbox", { toolbox_name: "dev" });
  });
  writeFileSync(variant, "changed\n");
  const refunds = async (peer: Peer) =>
    results(await peer.call("search_tools", { query: "refund", limit: 50 })).flatMap((result) => result.kind === "skill" ? [result.uri] : []);
  await session(dir, config, lock, async (peer) => {
    await peer.call("open_toolbox", { toolbox_name: "dev" });
    assert.deepEqual(await refunds(peer), ["skill://dev/a/refunds/templates/email/SKILL.md"], "live: refunds changed, withheld");
  });
  await session(dir, config, lock, async (peer) => {
    assert.deepEqual(await refunds(peer), ["skill://dev/a/refunds/templates/email/SKILL.md"], "cached: still withheld");
  });
});

test("read_skill reads an offered skill's SKILL.md and files, verified against its entry; a dynamic skill's file is said unverifiable", async () => {
  const { dir, config, lock } = setup();
  await session(dir, config, lock, async (peer) => {
    // No open_toolbox, no resources/read: the URI open_toolbox or search_tools gave is enough.
    const skill = await peer.readSkill("skill://dev/a/refunds/SKILL.md");
    assert.equal(skill.isError, undefined, textOf(skill));
    assert.equal(skill.content.length, 2);
    const [about, file] = skill.content as { type: string; text: string }[];
    assert.match(about.text, /^File skill:\/\/dev\/a\/refunds\/SKILL\.md of server 'a' in toolbox 'dev', as the server serves it; it matches the digest and size its skill was approved with \(sha256:[0-9a-f]{64}, \d+ bytes\)\.$/);
    assert.ok(about.text.includes(sha(file.text)), "the digest named is the bytes'");
    assert.match(file.text, /^---\nname: "refunds"/);
    const guide = await peer.readSkill("skill://dev/a/refunds/references/GUIDE.md");
    assert.equal((guide.content[1] as { text: string }).text, "a guide: refund within 30 days\n");
    const daily = await peer.readSkill("skill://dev/a/reports/daily/SKILL.md");
    assert.equal(daily.isError, undefined, textOf(daily));
    assert.match(textOf(daily), /a file of a "dynamic" skill: its bytes cannot be verified/);
    const refused = async (uri: string, pattern: RegExp, toolbox?: string) => {
      const result = await peer.readSkill(uri, toolbox);
      assert.equal(result.isError, true, uri);
      assert.match(textOf(result), pattern);
    };
    await refused("skill://dev/a/refunds/references/NOPE.md", /^Error executing tool 'read_skill' in server 'workbench' \(toolbox 'dev'\): "skill:\/\/dev\/a\/refunds\/references\/NOPE\.md" is not a file of a skill server 'a' in toolbox 'dev' offers$/);
    await refused("skill://dev/b/refunds/SKILL.md", /is not a skill file: its URI names its toolbox and server/);
    await refused("skill://dev/a/refunds/SKILL.md", /is not a skill file of toolbox 'ops': such a URI starts with "skill:\/\/ops\/"/, "ops");
    await refused("skill://refunds/SKILL.md", /is not a skill file of toolbox 'dev'/);
    const bad = await peer.call("use_tool", { tool: { toolbox: "dev", server: "workbench", name: "read_skill" }, arguments: { url: "x" } });
    assert.match(textOf(bad), /^Invalid arguments for tool 'read_skill' in server 'workbench' \(toolbox 'dev'\):\n- 'uri': expected the URI of a skill's file, a non-empty string\n- 'url': unknown argument \(expected 'uri'\)$/);
  });
});

test("open_toolbox says how to read a skill: its read_skills call, with a URI of its skills lines, reads the SKILL.md", async () => {
  const { dir, config, lock } = setup();
  await session(dir, config, lock, async (peer) => {
    const opened = JSON.parse(textOf(await peer.call("open_toolbox", { toolbox_name: "dev" })));
    assert.equal(
      opened.read_skills,
      `Read a skill's SKILL.md, then its files, as resources or with use_tool {"tool": {"toolbox": "dev", "server": "workbench", "name": "read_skill"}, "arguments": {"uri": "<its URI>"}}`,
    );
    const uri = /<(skill:[^>]+)>$/.exec(opened.skills.a[0])![1];
    const call = JSON.parse(opened.read_skills.slice(opened.read_skills.indexOf("{")).replace("<its URI>", uri));
    const read = await peer.call("use_tool", call);
    assert.equal(read.isError, undefined, textOf(read));
    assert.match(textOf(read), /^File skill:\/\/dev\/a\/refunds\/SKILL\.md of server 'a'/);
    const ops = JSON.parse(textOf(await peer.call("open_toolbox", { toolbox_name: "ops" })));
    assert.equal(ops.read_skills, undefined, "no skills, no line");
  });
});

test("read_skill goes through the pins and the digests: a withheld skill is refused, bytes changed under an unchanged entry are not passed on", async () => {
  const { dir, variant, config, lock } = setup({ FIXTURE_SKILLS_LIVE: "1" });
  await session(dir, config, lock, async (peer) => {
    assert.equal((await peer.readSkill("skill://dev/a/refunds/references/GUIDE.md")).isError, undefined);
    writeFileSync(variant, "tampered\n");
    const tampered = await peer.readSkill("skill://dev/a/refunds/references/GUIDE.md");
    assert.equal(tampered.isError, true);
    assert.match(textOf(tampered), /"skill:\/\/dev\/a\/refunds\/references\/GUIDE\.md" is not the file its skill was approved with \(digest or size differ\): not passed on/);
  });
  writeFileSync(variant, "changed\n");
  await session(dir, config, lock, async (peer) => {
    for (const uri of ["skill://dev/a/refunds/SKILL.md", "skill://dev/a/refunds/references/NEW.md"]) {
      const held = await peer.readSkill(uri);
      assert.equal(held.isError, true, uri);
      assert.match(textOf(held), /belongs to skill "skill:\/\/dev\/a\/refunds\/SKILL\.md", withheld: frontmatter, files changed \(the user can review it with: mcp-workbench approve dev a --config \S+\/workbench-config\.json --dry-run, and approve on a terminal with: mcp-workbench approve dev a --config \S+\/workbench-config\.json\)$/);
    }
    assert.equal((await peer.readSkill("skill://dev/a/refunds/templates/email/body.md")).isError, true, "under the withheld skill's root");
  });
});

test("search_tools: the text of 8 results, skills among them, stays within 2,400 bytes, each skill's URI kept", () => {
  const long = "Processes every kind of customer request about refunds, returns, credit notes and chargebacks ".repeat(6);
  const answer = {
    results: Array.from({ length: 8 }, (_, index): SearchResult =>
      index % 2 === 0
        ? { kind: "skill", toolbox: "billing-and-payments", server: "refund-server", name: `refunds-${index}`, description: long, uri: `skill://billing-and-payments/refund-server/acme/billing/refunds-${index}/SKILL.md` }
        : { toolbox: "billing-and-payments", server: "refund-server", name: `tool_${index}`, description: long, signature: `tool_${index}(${"argument: string, ".repeat(10)})` }
    ),
  };
  const text = (presentSearch(answer).content[0] as { text: string }).text;
  assert.ok(utf8Bytes(text) <= 2_400, `${utf8Bytes(text)} bytes`);
  for (const result of answer.results) if (result.kind === "skill") assert.ok(text.includes(`<${result.uri}>`), result.uri);
});
