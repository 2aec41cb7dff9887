/**
 * A server's skills learned when it connects: the Skills extension read from its capabilities,
 * `skills/list` paged into its listing, entries over the specification's limits (512 files,
 * 16 MiB, a name not of 1 to 64 characters) refused with a reason, 512 files kept. Over the real fixture (tests/fixtures/skills-server.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { platform } from "#platform";
import { validateConfig } from "../../src/config/index.ts";
import { ServerSession } from "../../src/downstream/server-session.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { checkSkillEntry, MAX_SKILL_NAME } from "../../src/protocol/skills.ts";

const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };

async function listingOf(env: Record<string, string>) {
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { sk: fixtureServer("skills-server.ts", { env }) } } } });
  const connection = ServerSession.open({ toolbox: "dev", server: "sk", config: config.toolboxes.dev.mcpServers.sk }, host);
  try {
    await connection.connect();
    return connection.listing;
  } finally {
    await connection.close();
  }
}

test("skills listing: a server declaring the extension has its skills listed over every page, directoryRead noted", async () => {
  const listing = await listingOf({ FIXTURE_LABEL: "a" });
  assert.equal(listing.skills?.directoryRead, true);
  assert.deepEqual(listing.skills?.entries.map((entry) => entry.uri), [
    "skill://refunds/SKILL.md",
    "skill://refunds/templates/email/SKILL.md",
    "skill://reports/daily/SKILL.md",
  ]);
  assert.deepEqual(listing.skills?.refused, []);
  assert.ok(listing.resources.some((resource) => resource.uri === "skill://refunds/references/GUIDE.md"));
});

test("skills listing: 512 files are supported; 513 files, or more than 16 MiB, are refused with a reason", async () => {
  const at = await listingOf({ FIXTURE_SKILLS_BULK: "512", FIXTURE_SKILLS_PAGE: "10" });
  assert.ok(at.skills?.entries.some((entry) => entry.uri === "skill://bulk/SKILL.md"));
  const over = await listingOf({ FIXTURE_SKILLS_BULK: "513", FIXTURE_SKILLS_PAGE: "10" });
  assert.deepEqual(over.skills?.refused, [
    { uri: "skill://bulk/SKILL.md", reason: 'Skill "skill://bulk/SKILL.md" has 513 files, more than the 512 supported' },
  ]);
  assert.equal(over.skills?.entries.length, 3);
  const big = await listingOf({ FIXTURE_SKILLS_BULK: "3", FIXTURE_SKILLS_BULK_BYTES: String(8 * 1024 * 1024 + 1) });
  assert.match(big.skills?.refused[0]?.reason ?? "", /^Skill "skill:\/\/bulk\/SKILL.md" has \d+ bytes, more than the 16777216 supported$/);
});

test("skills listing: a server that does not declare the extension has no skills in its listing (skills/list is not asked)", async () => {
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { c: fixtureServer("catalog-server.ts", { env: { FIXTURE_RESOURCES: "skill://x/SKILL.md" } }) } } } });
  const connection = ServerSession.open({ toolbox: "dev", server: "c", config: config.toolboxes.dev.mcpServers.c }, host);
  try {
    await connection.connect();
    assert.equal(connection.listing.skills, undefined);
    assert.equal(connection.listing.resources.length, 1);
  } finally {
    await connection.close();
  }
});

test("skills listing: a skill's name has 1 to 64 characters; one named \"\" at skill://SKILL.md is refused, the others kept", async () => {
  const listing = await listingOf({ FIXTURE_LABEL: "a", FIXTURE_SKILLS_ROOTLESS: "1" });
  assert.deepEqual(listing.skills?.refused, [
    { uri: "skill://SKILL.md", reason: 'Skill "skill://SKILL.md" has a name of 0 characters, where a name has 1 to 64' },
  ]);
  assert.equal(listing.skills?.entries.length, 3);
  const named = (name: string) => checkSkillEntry({ uri: `skill://${name}/SKILL.md`, frontmatter: { name, description: "d" }, resources: "dynamic" });
  assert.ok("entry" in named("x".repeat(MAX_SKILL_NAME)));
  assert.match((named("x".repeat(MAX_SKILL_NAME + 1)) as { reason: string }).reason, /has a name of 65 characters/);
  assert.ok("entry" in named("a"));
});
