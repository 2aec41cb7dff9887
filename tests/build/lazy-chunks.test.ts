/**
 * What the executable loads at start-up is what tests/start-up-modules.test.ts allows: the release's
 * flags split the bundle (`--splitting`), so a module reached only by `await import()` (telemetry's
 * exporter, the Redis link, a member's login, the search's thesaurus, the subcommands, jose) is a
 * chunk of its own, read with its first import. Without splitting the whole bundle was one module,
 * its code paged in at start: RSS after initialize was 0.9 MiB higher (issue 47's floor, docs/benchmarks.md).
 * The bundle is built as the executable is, to a folder (bun's metafile names each chunk's inputs).
 * Split, an entry's own code runs after every chunk it imports statically: src/main.ts configures
 * zod before anything else is loaded, or the SDK's schemas are built unconfigured and each compiles
 * a parser with `new Function` at its first parse (3.5 ms more to the initialize answer, and the
 * JavaScript compiler paged in).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

let outputs: Record<string, Output> | undefined;

/** The release's flags less those of the executable itself (it is written to a folder here). */
function bundle(): Record<string, Output> {
  if (outputs) return outputs;
  const flags = BUN_COMPILE_FLAGS.filter((flag) => !/^--(compile|bytecode)/.test(flag));
  const args = ["build", ...flags, "--target=bun", "src/main.ts", "--outdir", `${dir}/out`, `--metafile=${dir}/meta.json`];
  const built = spawnSync(`${repoRoot}/node_modules/.bin/bun`, args, { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
  assert.equal(built.status, 0, built.stderr);
  outputs = JSON.parse(readFileSync(`${dir}/meta.json`, "utf8")).outputs as Record<string, Output>;
  return outputs;
}

/** What src/main.ts imports dynamically, at once, as Bun resolves it ("#platform" is Bun's adapter). */
const MAIN_IMPORTS = ["src/platform/bun.ts", "src/cli/run.ts", "src/cache/sha256.ts"];

/**
 * The chunks loaded at start: the entry's, the chunks of what src/main.ts imports dynamically at
 * once, and what those import statically, transitively.
 */
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
      const output = byPath.get(target);
      if (!output) continue;
      const atOnce = imported.kind !== "dynamic-import" ||
        (path === entry[0] && MAIN_IMPORTS.some((file) => output.entryPoint?.endsWith(file)));
      if (atOnce) pending.push(target);
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
  for (const serving of ["src/main.ts", "src/cli/run.ts", "src/upstream/session.ts", "src/downstream/server-session.ts"]) {
    assert.ok(startInputs.some((input) => input.endsWith(serving)), `"${serving}" is loaded at start`);
  }
  for (const lazy of LAZY) {
    assert.ok(allInputs.some((input) => input.includes(lazy)), `"${lazy}" is in the bundle`);
    assert.deepEqual(startInputs.filter((input) => input.includes(lazy)), [], `"${lazy}" is loaded at start-up`);
  }
});

/** Counts each `new Function` (zod's compiled parsers, and its probe for them) on stderr. */
const COUNT_NEW_FUNCTION = `
const Original = globalThis.Function;
globalThis.Function = new Proxy(Original, {
  construct(target, args) {
    process.stderr.write("new Function\\n");
    return Reflect.construct(target, args);
  },
});
`;

test("build: the bundle answers initialize without compiling a parser (zod configured before the SDK's schemas)", () => {
  bundle();
  writeFileSync(`${dir}/count.js`, COUNT_NEW_FUNCTION);
  writeFileSync(`${dir}/config.json`, JSON.stringify({ toolboxes: {} }));
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  };
  const served = spawnSync(
    `${repoRoot}/node_modules/.bin/bun`,
    ["--preload", `${dir}/count.js`, `${dir}/out/main.js`, "--config", `${dir}/config.json`],
    // Only what it needs: a CI machine's OTEL_* or BUN_OPTIONS would change what runs.
    { input: `${JSON.stringify(initialize)}\n`, encoding: "utf8", timeout: 30_000, env: { HOME: dir, WORKBENCH_CACHE_DIR: `${dir}/cache` } },
  );
  assert.match(served.stdout, /"protocolVersion":"2025-11-25"/, served.stderr);
  assert.equal(served.stderr.split("\n").filter((line) => line === "new Function").length, 0, served.stderr);
});
