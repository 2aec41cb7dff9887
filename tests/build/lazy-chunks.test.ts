/**
 * What the executable loads at start-up is what tests/start-up-modules.test.ts allows: the release's
 * flags split the bundle (`--splitting`), so a module reached only by `await import()` (telemetry's
 * exporter, the Redis link, a member's login, the search's thesaurus, the subcommands, jose) is a
 * chunk of its own, read with its first import. Without splitting the whole bundle was one module,
 * its code paged in at start: RSS after initialize was 0.8 MiB higher (issue 47's floor).
 * The bundle is built as the executable is, to a folder (bun's metafile names each chunk's inputs).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { BUN_COMPILE_FLAGS } from "../../scripts/release/compile.ts";
import { repoRoot } from "../helpers/runtime.ts";

/** Modules the serving path imports only when asked (each behind an `await import()`). */
const LAZY = [
  "src/telemetry/telemetry.ts",
  "src/telemetry/exporter.ts",
  "src/platform/redis-link.ts",
  "src/auth/member-login.ts",
  "src/search/thesaurus.json",
  "src/cli/check.ts",
  "node_modules/jose/",
];

interface Output {
  entryPoint?: string;
  inputs: Record<string, unknown>;
  imports?: { path: string; kind: string }[];
}

const dir = mkdtempSync(`${tmpdir()}/workbench-chunks-`);
after(() => rmSync(dir, { recursive: true, force: true }));

/** The release's flags less those of the executable itself (it is written to a folder here). */
function bundle(): Record<string, Output> {
  const flags = BUN_COMPILE_FLAGS.filter((flag) => !/^--(compile|bytecode)/.test(flag));
  const args = ["build", ...flags, "--target=bun", "src/main.ts", "--outdir", `${dir}/out`, `--metafile=${dir}/meta.json`];
  const built = spawnSync(`${repoRoot}/node_modules/.bin/bun`, args, { cwd: repoRoot, encoding: "utf8" });
  assert.equal(built.status, 0, built.stderr);
  return JSON.parse(readFileSync(`${dir}/meta.json`, "utf8")).outputs;
}

/** The chunks the entry chunk loads at start: itself and what it imports statically, transitively. */
function loadedAtStart(outputs: Record<string, Output>): Set<string> {
  const byPath = new Map(Object.entries(outputs).map(([path, output]) => [path.replace(/^\.\//, ""), output]));
  const entry = [...byPath].find(([, output]) => output.entryPoint?.endsWith("src/main.ts"));
  assert.ok(entry, "The bundle has no chunk for src/main.ts");
  const reached = new Set<string>();
  const pending = [entry[0]];
  while (pending.length > 0 && reached.size <= byPath.size) {
    const path = pending.pop()!;
    if (reached.has(path)) continue;
    reached.add(path);
    for (const imported of byPath.get(path)?.imports ?? []) {
      const target = imported.path.replace(/^\.\//, "").replace(`${dir}/out/`, "");
      if (imported.kind !== "dynamic-import" && byPath.has(target)) pending.push(target);
    }
  }
  return reached;
}

test("build: what is imported only when asked is a chunk of its own, not loaded at start-up", () => {
  const outputs = bundle();
  const atStart = loadedAtStart(outputs);
  const inputsOf = (paths: Iterable<string>) =>
    [...paths].flatMap((path) => Object.keys((outputs[path] ?? outputs[`./${path}`]).inputs));
  const startInputs = inputsOf(atStart);
  const allInputs = inputsOf(Object.keys(outputs));
  assert.ok(startInputs.some((input) => input.endsWith("src/main.ts")), "src/main.ts is loaded at start");
  for (const lazy of LAZY) {
    assert.ok(allInputs.some((input) => input.includes(lazy)), `"${lazy}" is in the bundle`);
    assert.deepEqual(startInputs.filter((input) => input.includes(lazy)), [], `"${lazy}" is loaded at start-up`);
  }
});
