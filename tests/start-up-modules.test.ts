/**
 * What the workbench loads to serve: the modules reachable from src/main.ts through static imports.
 * In the executable a statically imported module is loaded and evaluated at start-up, and one reached
 * only by `await import()` is a chunk of its own, loaded when that line runs (tests/build/lazy-chunks.test.ts),
 * so this graph is what serving pays in memory before a client has asked for anything
 * (docs/benchmarks.md, figure 6). The subcommands,
 * the remote and OAuth code, the tool search index, the configuration's JSON Schema and Node's
 * file system stay out.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { repoRoot } from "./helpers/runtime.ts";

/** `import x from "m"`, `import "m"` and `export ... from "m"`, without `import type` and `export type`. */
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm;
/** The adapters `#platform` names in package.json: Bun's for the executable, Deno's for `deno compile`. */
const PLATFORM_ADAPTERS = ["src/platform/bun.ts", "src/platform/deno.ts"];

/** Static imports of a source text: relative paths, packages and node: modules as written. */
function staticImports(source: string): string[] {
  return [...source.matchAll(STATIC_IMPORT)].map((match) => match[1]);
}

/** `await import("m")` with a literal specifier. */
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * Every file (repo-relative) and package reached from `entry` through static imports, and through
 * the entry's own dynamic imports: it imports all but zod's configuration that way, at start.
 */
function startUpGraph(entry: string): Set<string> {
  const reached = new Set<string>();
  const entryDir = entry.slice(0, entry.lastIndexOf("/"));
  const dynamic = [...readFileSync(`${repoRoot}/${entry}`, "utf8").matchAll(DYNAMIC_IMPORT)].map((match) => match[1]);
  const pending = [entry, ...dynamic.flatMap((specifier) =>
    specifier === "#platform" ? PLATFORM_ADAPTERS : [new URL(specifier, `file:///${entryDir}/`).pathname.slice(1)]
  )];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    if (!file.startsWith("src/")) continue;
    const dir = file.slice(0, file.lastIndexOf("/"));
    for (const specifier of staticImports(readFileSync(`${repoRoot}/${file}`, "utf8"))) {
      if (specifier === "#platform") pending.push(...PLATFORM_ADAPTERS);
      else if (specifier.startsWith(".")) pending.push(new URL(specifier, `file:///${dir}/`).pathname.slice(1));
      else pending.push(specifier);
    }
  }
  return reached;
}

const LAZY = [
  "src/cli/check.ts",
  "src/cli/tools.ts",
  "src/cli/call.ts",
  "src/cli/init.ts",
  "src/cli/schema.ts",
  "src/cli/auth.ts",
  "src/config/json-schema.ts",
  "src/search/index.ts",
  "src/telemetry/telemetry.ts",
  "@valibot/to-json-schema",
  "src/downstream/links/http-link.ts",
  "src/protocol/sdk-remote.ts",
  "jose",
  "node:fs",
  "node:fs/promises",
  "node:path",
];

test("start-up modules: serving loads no subcommand, remote or OAuth code, no search index and no node:fs or node:path", () => {
  const graph = startUpGraph("src/main.ts");
  // The walk itself found the serving path.
  for (const file of ["src/cli/run.ts", "src/upstream/session.ts", "src/downstream/server-session.ts", "src/platform/bun.ts"]) {
    assert.ok(graph.has(file), `${file} is reached`);
  }
  assert.deepEqual(LAZY.filter((module) => graph.has(module)), []);
});

test("start-up modules: zod is configured before anything else is imported (no new Function at start-up)", () => {
  // Alone: in a split bundle the entry's own code runs after all it imports statically
  // (tests/build/lazy-chunks.test.ts runs the bundle and counts new Function).
  assert.deepEqual(staticImports(readFileSync(`${repoRoot}/src/main.ts`, "utf8")), ["./protocol/zod-config.ts"]);
});

test("start-up modules: the import scan sees each static form and skips type-only imports", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import {\n  b,\n  type B,\n} from "./b.ts";',
    'import "./c.ts";',
    'export { d } from "./d.ts";',
    'import type { E } from "./e.ts";',
    'export type { F } from "./f.ts";',
    'const g = await import("./g.ts");',
    'import * as h from "node:fs";',
  ].join("\n");
  assert.deepEqual(staticImports(source), ["./a.ts", "./b.ts", "./c.ts", "./d.ts", "node:fs"]);
});
