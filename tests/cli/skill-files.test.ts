/**
 * approve's lines for a skill's files (src/cli/skill-files.ts): one per file added, removed or
 * changed, with sizes and digests, and the count of those unchanged; a "dynamic" skill said so.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { skillFileLines } from "../../src/cli/skill-files.ts";

const digest = (char: string) => `sha256:${char.repeat(64)}`;

test("skill files: added, removed and changed with sizes and digests; the unchanged counted", () => {
  const before = { "skill://r/SKILL.md": `${digest("0")} 10`, "skill://r/GUIDE.md": `${digest("a")} 31`, "skill://r/OLD.md": `${digest("c")} 1` };
  const after = { "skill://r/SKILL.md": `${digest("0")} 10`, "skill://r/GUIDE.md": `${digest("b")} 40`, "skill://r/NEW.md": `${digest("d")} 24` };
  assert.deepEqual(skillFileLines(before, after), [
    `changed  skill://r/GUIDE.md (31 bytes, sha256:${"a".repeat(16)}… -> 40 bytes, sha256:${"b".repeat(16)}…)`,
    `added    skill://r/NEW.md (24 bytes, sha256:${"d".repeat(16)}…)`,
    `removed  skill://r/OLD.md (was 1 byte, sha256:${"c".repeat(16)}…)`,
    "1 file unchanged",
  ]);
});

test("skill files: a new skill's files are all added; a dynamic skill is said unverifiable", () => {
  assert.deepEqual(skillFileLines(undefined, { "skill://r/SKILL.md": `${digest("0")} 10` }), [`added    skill://r/SKILL.md (10 bytes, sha256:${"0".repeat(16)}…)`]);
  assert.deepEqual(skillFileLines(undefined, "dynamic"), [`now: "dynamic": the server publishes no digests, its files cannot be verified`]);
  assert.deepEqual(skillFileLines({ "skill://r/SKILL.md": `${digest("0")} 10` }, "dynamic"), [
    "was: 1 file",
    `now: "dynamic": the server publishes no digests, its files cannot be verified`,
  ]);
  assert.deepEqual(skillFileLines("dynamic", { "skill://r/SKILL.md": `${digest("0")} 10` }), [
    `was: "dynamic"`,
    "now: 1 file",
    `added    skill://r/SKILL.md (10 bytes, sha256:${"0".repeat(16)}…)`,
  ]);
});
