/**
 * The Skills extension through the workbench, end to end: two servers (tests/fixtures/skills-server.ts)
 * in two toolboxes serve a colliding `skill://refunds/SKILL.md`; a 2025-11-25 SDK client reads the
 * extension by raw requests. Listing (URIs naming toolbox and server), get, directory reads, file
 * reads whose digests verify, the declaration once the servers were listed, and a changed skill
 * withheld from listing, get and reads until `approve`.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import * as z from "zod";
import { Client, StdioClientTransport } from "../helpers/sdk.ts";
import { fixtureServer, workbenchCommand, workbenchEnv } from "../helpers/runtime.ts";
import { exited, removeTempDirs, tempDir, writeConfig } from "../helpers/workbench.ts";
import { runCli } from "../helpers/cli.ts";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";

after(removeTempDirs);

const EXTENSION = "io.modelcontextprotocol/skills";
const Any = z.object({}).passthrough();
type Entry = { uri: string; frontmatter: Record<string, unknown>; resources: { uri: string; digest: string; size: number }[] | "dynamic" };

function setup() {
  const dir = tempDir();
  const variant = `${dir}/variant-a`;
  writeFileSync(variant, "base\n");
  const server = (label: string, extra: Record<string, string> = {}) =>
    fixtureServer("skills-server.ts", { env: { FIXTURE_LABEL: label, ...extra } });
  const path = writeConfig(dir, {
    toolboxes: {
      dev: { description: "Dev", mcpServers: { a: server("a", { FIXTURE_SKILLS_VARIANT_FILE: variant }) } },
      ops: { description: "Ops", mcpServers: { b: server("b") } },
    },
  });
  return { dir, path, variant, env: { WORKBENCH_CACHE_DIR: `${dir}/cache` } };
}

async function serveAt(path: string, env: Record<string, string>) {
  const { command, args } = workbenchCommand(["--config", path]);
  const transport = new StdioClientTransport({ command, args, env: workbenchEnv(env), stderr: "pipe" });
  const client = new Client({ name: "skills-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    open: (toolbox_name: string) => client.callTool({ name: "open_toolbox", arguments: { toolbox_name } }),
    list: async () => (await client.request({ method: "skills/list", params: {} }, Any)).skills as Entry[],
    async close() {
      const pid = transport.pid;
      await client.close();
      if (pid !== null) await exited(pid, 10_000);
    },
  };
}

const sha = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
const read = async (client: Client, uri: string) => {
  const content = (await client.readResource({ uri })).contents[0] as { uri: string; text: string };
  assert.equal(content.uri, uri, "the content names the URI the client read");
  return content.text;
};

test("skills e2e: both servers' skills listed under URIs naming toolbox and server; get, directory read, reads that verify", async () => {
  const { path, env } = setup();
  const session = await serveAt(path, env);
  try {
    await session.open("dev");
    await session.open("ops");
    const skills = await session.list();
    assert.deepEqual(skills.map((skill) => skill.uri), [
      "skill://dev/a/refunds/SKILL.md",
      "skill://dev/a/refunds/templates/email/SKILL.md",
      "skill://dev/a/reports/daily/SKILL.md",
      "skill://ops/b/refunds/SKILL.md",
      "skill://ops/b/refunds/templates/email/SKILL.md",
      "skill://ops/b/reports/daily/SKILL.md",
    ]);
    const [a, b] = [skills[0], skills[3]];
    assert.equal(a.frontmatter.name, "refunds");
    assert.notEqual(a.frontmatter.description, b.frontmatter.description, "the collision is kept distinct");
    for (const entry of [a, b]) {
      assert.ok(Array.isArray(entry.resources));
      const root = entry.uri.slice(0, -"SKILL.md".length);
      for (const file of entry.resources) {
        assert.ok(file.uri.startsWith(root), `${file.uri} is under ${root}`);
        const text = await read(session.client, file.uri);
        assert.equal(sha(text), file.digest, `${file.uri} verifies`);
        assert.equal(new TextEncoder().encode(text).byteLength, file.size);
      }
    }
    // The relative reference in SKILL.md resolves against the rewritten root.
    assert.match(await read(session.client, a.uri), /\(references\/GUIDE\.md\)/);
    const guide = new URL("references/GUIDE.md", a.uri).href;
    assert.equal(guide, "skill://dev/a/refunds/references/GUIDE.md");
    assert.match(await read(session.client, guide), /^a guide/);
    assert.equal(skills[2].resources, "dynamic");

    const got = await session.client.request({ method: "skills/get", params: { uri: "skill://ops/b/refunds/SKILL.md" } }, Any);
    assert.deepEqual(got.skill, b);
    await assert.rejects(session.client.request({ method: "skills/get", params: { uri: "skill://refunds/SKILL.md" } }, Any), { code: -32602 });

    const directory = await session.client.request({ method: "resources/directory/read", params: { uri: "skill://dev/a/refunds/templates" } }, Any);
    assert.deepEqual(directory.resources, [{ uri: "skill://dev/a/refunds/templates/email", name: "email", mimeType: "inode/directory" }]);
    await assert.rejects(
      session.client.request({ method: "resources/directory/read", params: { uri: "skill://dev/a/refunds/SKILL.md" } }, Any),
      { code: -32602 },
    );
  } finally {
    await session.close();
  }
});

test("skills e2e: declared to the client once a server was listed with it; a changed skill is withheld until approve", async () => {
  const { dir, path, variant, env } = setup();
  const first = await serveAt(path, env);
  try {
    assert.equal(first.client.getServerCapabilities()?.extensions?.[EXTENSION], undefined, "no server was listed yet");
    await first.open("dev");
    assert.equal((await first.list()).length, 3);
  } finally {
    await first.close();
  }
  writeFileSync(variant, "changed\n");
  const second = await serveAt(path, env);
  try {
    assert.deepEqual(second.client.getServerCapabilities()?.extensions?.[EXTENSION], { directoryRead: true });
    await second.open("dev");
    assert.deepEqual((await second.list()).map((skill) => skill.uri), [
      "skill://dev/a/refunds/templates/email/SKILL.md",
      "skill://dev/a/reports/daily/SKILL.md",
    ]);
    await assert.rejects(
      second.client.request({ method: "skills/get", params: { uri: "skill://dev/a/refunds/SKILL.md" } }, Any),
      (error: Error & { code?: number }) => error.code === -32602 && /withheld: frontmatter, files changed/.test(error.message),
    );
    await assert.rejects(second.client.readResource({ uri: "skill://dev/a/refunds/references/GUIDE.md" }), /withheld/);
    // By its own URI: the file of the server that offers that URI (ops' b), never dev's withheld one.
    assert.match(await read(second.client, "skill://refunds/references/GUIDE.md"), /^b guide/);
  } finally {
    await second.close();
  }
  const approved = await runCli(["approve", "dev", "a", "--yes", "--config", path], { env, cwd: dir });
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /skill 'skill:\/\/refunds\/SKILL\.md': frontmatter, files changed/);
  // The files one line each, with sizes and digests, not the pin's JSON.
  assert.match(approved.stdout, /\n  files:\n    changed  skill:\/\/refunds\/SKILL\.md \(\d+ bytes, sha256:[0-9a-f]{16}… -> \d+ bytes, sha256:[0-9a-f]{16}…\)\n/);
  assert.match(approved.stdout, /\n    added    skill:\/\/refunds\/references\/NEW\.md \(\d+ bytes, sha256:[0-9a-f]{16}…\)\n/);
  assert.match(approved.stdout, /\n    changed  skill:\/\/refunds\/references\/GUIDE\.md \(/);
  assert.match(approved.stdout, /\n    2 files unchanged\n/);
  assert.doesNotMatch(approved.stdout, /"skill:\/\/refunds\/references\/NEW\.md":/);
  const third = await serveAt(path, env);
  try {
    await third.open("dev");
    const refunds = (await third.list()).find((skill) => skill.uri === "skill://dev/a/refunds/SKILL.md");
    assert.match(String(refunds?.frontmatter.description), /refund everything/);
    assert.match(await read(third.client, "skill://dev/a/refunds/references/NEW.md"), /added later/);
  } finally {
    await third.close();
  }
});

test("skills e2e: a client that does not speak the extension finds the skills in open_toolbox and reads them as resources", async () => {
  const { path, env } = setup();
  const session = await serveAt(path, env);
  try {
    const opened = JSON.parse((await session.open("dev") as { content: { text: string }[] }).content[0].text);
    assert.deepEqual(opened.skills, {
      a: [
        "refunds: a: process customer refund requests per policy <skill://dev/a/refunds/SKILL.md>",
        "email: a: write the refund email <skill://dev/a/refunds/templates/email/SKILL.md>",
        "daily: a: assemble today's report from live data <skill://dev/a/reports/daily/SKILL.md>",
      ],
    });
    assert.match(await read(session.client, "skill://dev/a/refunds/SKILL.md"), /^---\nname: "refunds"/);
  } finally {
    await session.close();
  }
});

test("skills e2e: a 2026-07-28 client (SDK v2, pinned) is declared the extension and lists, gets and reads skills", async () => {
  const { path, env } = setup();
  const first = await serveAt(path, env);
  try {
    await first.open("dev");
  } finally {
    await first.close();
  }
  const { command, args } = workbenchCommand(["--config", path]);
  const client = new V2Client({ name: "skills-2026", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new V2StdioTransport({ command, args, env: workbenchEnv(env), stderr: "pipe" });
  await client.connect(transport);
  try {
    assert.equal(client.getProtocolEra(), "modern");
    assert.deepEqual(client.getServerCapabilities()?.extensions?.[EXTENSION], { directoryRead: true });
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const listed = await client.request({ method: "skills/list", params: {} }, Any) as { skills: Entry[] };
    assert.equal(listed.skills[0].uri, "skill://dev/a/refunds/SKILL.md");
    const got = await client.request({ method: "skills/get", params: { uri: "skill://dev/a/refunds/SKILL.md" } }, Any) as { skill: Entry };
    assert.deepEqual(got.skill, listed.skills[0]);
    const file = (listed.skills[0].resources as { uri: string; digest: string }[])[1];
    const read = await client.readResource({ uri: file.uri });
    assert.equal(sha((read.contents[0] as { text: string }).text), file.digest);
  } finally {
    const pid = transport.pid;
    await client.close();
    if (pid) await exited(pid, 10_000);
  }
});

test("skills e2e: a file whose bytes changed under an unchanged listing is not passed on", async () => {
  const { dir, variant, env } = setup();
  const path = writeConfig(dir, {
    toolboxes: { dev: { mcpServers: { a: fixtureServer("skills-server.ts", { env: { FIXTURE_LABEL: "a", FIXTURE_SKILLS_VARIANT_FILE: variant, FIXTURE_SKILLS_LIVE: "1" } }) } } },
  });
  const session = await serveAt(path, env);
  try {
    await session.open("dev");
    const guide = "skill://dev/a/refunds/references/GUIDE.md";
    assert.match(await read(session.client, guide), /^a guide/);
    writeFileSync(variant, "tampered\n");
    await assert.rejects(session.client.readResource({ uri: guide }), /is not the file its skill was approved with/);
  } finally {
    await session.close();
  }
});

test("skills e2e: a read of an approved file answered with other bytes is refused by resources/read and read_skill, whatever its shape", async () => {
  const { dir, variant, env } = setup();
  const path = writeConfig(dir, {
    toolboxes: { dev: { mcpServers: { a: fixtureServer("skills-server.ts", { env: { FIXTURE_LABEL: "a", FIXTURE_SKILLS_VARIANT_FILE: variant, FIXTURE_SKILLS_LIVE: "1" } }) } } },
  });
  const session = await serveAt(path, env);
  const guide = "skill://dev/a/refunds/references/GUIDE.md";
  const readSkill = async () => {
    const result = await session.client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "workbench", name: "read_skill" }, arguments: { uri: guide } } });
    return { isError: result.isError, text: (result.content as { type: string; text?: string }[]).map((item) => item.text ?? JSON.stringify(item)).join("\n") };
  };
  try {
    await session.open("dev");
    assert.match(await read(session.client, guide), /^a guide: refund within 30 days/);
    assert.match((await readSkill()).text, /it matches the digest and size/);
    const refusals: Record<string, RegExp> = {
      samesize: /is not the file its skill was approved with \(digest or size differ\): not passed on/,
      sibling: /is not the file its skill was approved with \(an item at "skill:\/\/dev\/a\/refunds\/references\/OTHER\.md"\)/,
      extra: /is not the file its skill was approved with \(2 items, where a file is one\)/,
      blob: /is not the file its skill was approved with \(an item with both or neither of text and blob\)/,
      nouri: /Server 'a' answered the read of "skill:\/\/dev\/a\/refunds\/references\/GUIDE\.md" with an item without a URI: not passed on/,
    };
    for (const [answer, refusal] of Object.entries(refusals)) {
      writeFileSync(variant, `${answer}\n`);
      await assert.rejects(session.client.readResource({ uri: guide }), refusal, `resources/read, ${answer}`);
      const skill = await readSkill();
      assert.equal(skill.isError, true, `read_skill, ${answer}: ${skill.text}`);
      assert.match(skill.text, refusal, `read_skill, ${answer}`);
      assert.doesNotMatch(skill.text, /matches the digest|REFUND anything/, `read_skill, ${answer}`);
    }
  } finally {
    await session.close();
  }
});

test("skills e2e: a dynamic skill named \"\" at skill://SKILL.md is not offered, and read_skill reads no URI of its server through it", async () => {
  const { dir, env } = setup();
  const path = writeConfig(dir, { toolboxes: { dev: { mcpServers: { a: fixtureServer("skills-server.ts", { env: { FIXTURE_LABEL: "a", FIXTURE_SKILLS_ROOTLESS: "1" } }) } } } });
  const session = await serveAt(path, env);
  try {
    await session.open("dev");
    assert.ok(!(await session.list()).some((skill) => skill.uri === "skill://dev/a/SKILL.md"), "refused: not listed");
    const result = await session.client.callTool({ name: "use_tool", arguments: { tool: { toolbox: "dev", server: "workbench", name: "read_skill" }, arguments: { uri: "skill://dev/a/private/notes.md" } } });
    const text = (result.content as { text: string }[]).map((item) => item.text).join("\n");
    assert.equal(result.isError, true, text);
    assert.match(text, /"skill:\/\/dev\/a\/private\/notes\.md" is not a file of a skill server 'a' in toolbox 'dev' offers$/);
    assert.doesNotMatch(text, /private notes/);
  } finally {
    await session.close();
  }
});

test("skills e2e: a first session (cache empty): a 2026-07-28 client's next server/discover declares the extension once a server listed it", async () => {
  const { path, env } = setup();
  const { command, args } = workbenchCommand(["--config", path]);
  const client = new V2Client({ name: "skills-2026-first", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new V2StdioTransport({ command, args, env: workbenchEnv(env), stderr: "pipe" });
  await client.connect(transport);
  try {
    assert.equal(client.getServerCapabilities()?.extensions?.[EXTENSION], undefined, "nothing listed yet: not declared");
    await client.callTool({ name: "open_toolbox", arguments: { toolbox_name: "dev" } });
    const discovered = await client.discover();
    assert.deepEqual(discovered.capabilities.extensions?.[EXTENSION], { directoryRead: true });
    const listed = await client.request({ method: "skills/list", params: {} }, Any) as { skills: Entry[] };
    assert.equal(listed.skills.length, 3);
  } finally {
    const pid = transport.pid;
    await client.close();
    if (pid) await exited(pid, 10_000);
  }
});

test("skills e2e: a 2026-07-28-only server (SDK v2's own SkillCatalog) serves its skills to a 2025-11-25 and a 2026-07-28 client", async () => {
  const dir = tempDir();
  const v2 = fixtureServer("v2-skills-server.ts", { args: [...fixtureServer("v2-skills-server.ts").args, "--era", "2026"] });
  const path = writeConfig(dir, { toolboxes: { v2: { mcpServers: { s: v2 } } } });
  const env = { WORKBENCH_CACHE_DIR: `${dir}/cache` };
  const check = async (client: { request: Client["request"]; readResource: Client["readResource"] }) => {
    const listed = await client.request({ method: "skills/list", params: {} }, Any) as { skills: Entry[] };
    assert.deepEqual(listed.skills.map((skill) => skill.uri), ["skill://v2/s/acme/billing/invoices/SKILL.md", "skill://v2/s/refunds/SKILL.md"]);
    const refunds = listed.skills[1].resources as { uri: string; digest: string; size: number }[];
    assert.deepEqual(refunds.map((file) => file.uri), ["skill://v2/s/refunds/SKILL.md", "skill://v2/s/refunds/references/GUIDE.md"]);
    for (const file of refunds) {
      const content = (await client.readResource({ uri: file.uri })).contents[0] as { uri: string; text: string };
      assert.equal(content.uri, file.uri);
      assert.equal(sha(content.text), file.digest, `${file.uri} verifies`);
    }
    const got = await client.request({ method: "skills/get", params: { uri: "skill://v2/s/refunds/SKILL.md" } }, Any) as { skill: Entry };
    assert.deepEqual(got.skill, listed.skills[1]);
  };
  const legacy = await serveAt(path, env);
  try {
    assert.ok(!(await legacy.open("v2") as { isError?: boolean }).isError);
    await check(legacy.client);
  } finally {
    await legacy.close();
  }
  const { command, args } = workbenchCommand(["--config", path]);
  const modern = new V2Client({ name: "skills-2026", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new V2StdioTransport({ command, args, env: workbenchEnv(env), stderr: "pipe" });
  await modern.connect(transport);
  try {
    assert.deepEqual(modern.getServerCapabilities()?.extensions?.[EXTENSION], { directoryRead: true }, "declared from the cache");
    await modern.callTool({ name: "open_toolbox", arguments: { toolbox_name: "v2" } });
    await check(modern as unknown as Client);
  } finally {
    const pid = transport.pid;
    await modern.close();
    if (pid) await exited(pid, 10_000);
  }
});
