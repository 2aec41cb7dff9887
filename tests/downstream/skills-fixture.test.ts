/**
 * The Skills extension fixture (tests/fixtures/skills-server.ts) against the specification, through
 * the official SDK client directly (no workbench): the declaration, a paged `skills/list` whose
 * entries are whole and whose digests verify on read, `skills/get`, `resources/directory/read`,
 * the -32602 answers, two labels' colliding bytes and a variant that changes a skill.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Client, StdioClientTransport } from "../helpers/sdk.ts";
import { fixtureServer, workbenchEnv } from "../helpers/runtime.ts";
import * as z from "zod";

const EXTENSION = "io.modelcontextprotocol/skills";
const Any = z.object({}).passthrough();
type Entry = { uri: string; frontmatter: Record<string, unknown>; resources: { uri: string; digest: string; size: number }[] | "dynamic" };

async function connect(env: Record<string, string>) {
  const { command, args } = fixtureServer("skills-server.ts");
  const client = new Client({ name: "skills-fixture-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, env: workbenchEnv(env), stderr: "ignore" }));
  return client;
}

async function listAll(client: Client): Promise<{ skills: Entry[]; pages: number }> {
  const skills: Entry[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 50; pages += 1) {
    const result = await client.request({ method: "skills/list", params: cursor ? { cursor } : {} }, Any) as Record<string, unknown>;
    assert.equal(result.resultType, "complete");
    assert.equal(typeof result.ttlMs, "number");
    assert.equal(typeof result.cacheScope, "string");
    skills.push(...result.skills as Entry[]);
    cursor = result.nextCursor as string | undefined;
    if (!cursor) return { skills, pages };
  }
  throw new Error("Too many pages");
}

const read = async (client: Client, uri: string) =>
  ((await client.readResource({ uri })).contents[0] as { text: string }).text;
const sha = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

test("skills fixture: declares the extension, lists every skill over pages, and every digest verifies", async () => {
  const client = await connect({ FIXTURE_LABEL: "a" });
  try {
    assert.deepEqual(client.getServerCapabilities()?.extensions?.[EXTENSION], { directoryRead: true });
    assert.ok(client.getServerCapabilities()?.resources);
    const { skills, pages } = await listAll(client);
    assert.equal(pages, 2);
    assert.deepEqual(skills.map((skill) => skill.uri), [
      "skill://refunds/SKILL.md",
      "skill://refunds/templates/email/SKILL.md",
      "skill://reports/daily/SKILL.md",
    ]);
    assert.equal(skills[2].resources, "dynamic");
    const refunds = skills[0];
    assert.deepEqual(refunds.frontmatter.metadata, { version: "1.0.0" });
    assert.ok(Array.isArray(refunds.resources));
    assert.deepEqual(refunds.resources.map((file) => file.uri).sort(), [
      "skill://refunds/SKILL.md",
      "skill://refunds/references/GUIDE.md",
      "skill://refunds/templates/email/SKILL.md",
      "skill://refunds/templates/email/body.md",
    ]);
    for (const file of refunds.resources) {
      const text = await read(client, file.uri);
      assert.equal(sha(text), file.digest);
      assert.equal(new TextEncoder().encode(text).byteLength, file.size);
    }
    assert.match(await read(client, "skill://refunds/SKILL.md"), /^---\nname: "refunds"\n/);
  } finally {
    await client.close();
  }
});

test("skills fixture: skills/get, directory reads and -32602 for what it does not serve", async () => {
  const client = await connect({ FIXTURE_LABEL: "a" });
  try {
    const got = await client.request({ method: "skills/get", params: { uri: "skill://refunds/templates/email/SKILL.md" } }, Any);
    assert.equal((got.skill as Entry).frontmatter.name, "email");
    await assert.rejects(client.request({ method: "skills/get", params: { uri: "skill://nope/SKILL.md" } }, Any), { code: -32602 });
    const first = await client.request({ method: "resources/directory/read", params: { uri: "skill://refunds" } }, Any);
    assert.equal(first.nextCursor, "2");
    const second = await client.request({ method: "resources/directory/read", params: { uri: "skill://refunds", cursor: "2" } }, Any);
    assert.equal(second.nextCursor, undefined);
    const children = [...first.resources as { uri: string; mimeType: string }[], ...second.resources as { uri: string; mimeType: string }[]]
      .map((child) => `${child.uri} ${child.mimeType}`);
    assert.deepEqual(children, [
      "skill://refunds/SKILL.md text/markdown",
      "skill://refunds/references inode/directory",
      "skill://refunds/templates inode/directory",
    ]);
    await assert.rejects(client.request({ method: "resources/directory/read", params: { uri: "skill://refunds/SKILL.md" } }, Any), { code: -32602 });
    await assert.rejects(client.readResource({ uri: "skill://refunds/nope.md" }), { code: -32602 });
  } finally {
    await client.close();
  }
});

test("skills fixture: two labels collide on skill://refunds/SKILL.md with other bytes; the changed variant changes refunds", async () => {
  const [a, b, changed] = await Promise.all([
    connect({ FIXTURE_LABEL: "a" }),
    connect({ FIXTURE_LABEL: "b" }),
    connect({ FIXTURE_LABEL: "a", FIXTURE_SKILLS_VARIANT: "changed" }),
  ]);
  try {
    const [first, second, third] = await Promise.all([a, b, changed].map(async (client) => (await listAll(client)).skills[0]));
    assert.equal(first.uri, second.uri);
    assert.notDeepEqual(first.resources, second.resources);
    assert.notDeepEqual(first.frontmatter, third.frontmatter);
    assert.ok(Array.isArray(third.resources) && third.resources.some((file) => file.uri.endsWith("references/NEW.md")));
  } finally {
    await Promise.all([a.close(), b.close(), changed.close()]);
  }
});
