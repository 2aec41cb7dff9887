/** The core is runtime-neutral: only src/platform/ may touch Deno, Bun, process or node:*. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { repoRoot } from "./helpers/runtime.ts";

const FORBIDDEN = /\bDeno\.|\bBun\.|\bprocess\.|from\s+["']node:|import\(\s*["']node:|\brequire\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

test("purity: nothing outside src/platform/ uses runtime-specific APIs", () => {
  const offenders: string[] = [];
  for (const file of sourceFiles(`${repoRoot}/src`)) {
    if (file.startsWith(`${repoRoot}/src/platform/`)) continue;
    readFileSync(file, "utf8").split("\n").forEach((line, index) => {
      if (FORBIDDEN.test(line)) offenders.push(`${file.slice(repoRoot.length + 1)}:${index + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(offenders, []);
});

test("purity: the check itself catches each forbidden form", () => {
  for (const line of ["Deno.exit(0)", "Bun.spawn([])", "process.env.X", 'import fs from "node:fs";', "require('x')"]) {
    assert.ok(FORBIDDEN.test(line), line);
  }
  assert.ok(!FORBIDDEN.test("const processed = 1; // Denote"));
});
