/**
 * The catalog's skills/list pages (SKILLS_PAGE entries, entries whole, a cursor it did not give is
 * -32602) and its URIs: `skill://<toolbox>/<server>/<path>` maps back to the server and its own URI.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { SKILLS_PAGE, SkillRoutes } from "../../../src/upstream/catalog/skills.ts";
import type { ConfiguredServer } from "../../../src/toolboxes/registry.ts";
import type { ServerListing } from "../../../src/downstream/listing.ts";

const configured = { toolbox: "dev", server: "a", rank: 0 } as unknown as ConfiguredServer;
const entries = Array.from({ length: SKILLS_PAGE * 2 + 20 }, (_, index) => ({
  uri: `skill://s${index}/SKILL.md`,
  frontmatter: { name: `s${index}`, description: `Skill ${index}` },
  resources: "dynamic" as const,
}));
const listing: ServerListing = { prompts: [], resources: [], resourceTemplates: [], skills: { directoryRead: false, entries, refused: [] } };
const routes = new SkillRoutes({
  sources: () => Promise.resolve([{ configured, listing }]),
  configured: () => [configured],
  forward: () => Promise.reject(new Error("Not forwarded in this test")),
  withheld: () => Promise.resolve([]),
});

test("catalog skills: skills/list gives every offered skill over pages of SKILLS_PAGE, with the cache hint", async () => {
  const seen: string[] = [];
  let cursor: unknown;
  for (let page = 0; page < 10; page++) {
    const result = await routes.list(cursor) as { skills: { uri: string }[]; nextCursor?: string; resultType: string; ttlMs: number; cacheScope: string };
    assert.equal(result.resultType, "complete");
    assert.ok(result.skills.length <= SKILLS_PAGE);
    assert.equal(typeof result.ttlMs, "number");
    seen.push(...result.skills.map((skill) => skill.uri));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  assert.equal(seen.length, entries.length);
  assert.equal(seen[0], "skill://dev/a/s0/SKILL.md");
  await assert.rejects(routes.list("nope"), { code: -32602 });
});

test("catalog skills: a rewritten URI names its server and its own URI; any other is not the catalog's", () => {
  assert.deepEqual(routes.originOf("skill://dev/a/refunds/references/GUIDE.md"), { configured, uri: "skill://refunds/references/GUIDE.md" });
  assert.equal(routes.originOf("skill://ops/b/refunds/SKILL.md"), undefined);
  assert.equal(routes.originOf("skill://dev/a"), undefined);
  assert.equal(routes.originOf("file:///dev/a/x"), undefined);
});
