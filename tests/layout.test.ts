/**
 * The house by the proxy's two sides, held to its plan: the folders of src/ in one order written
 * down here, from the composition root down to the platform. An import may point down that order
 * or within its own folder, never back up; no two files import each other, however far round;
 * every file opens with a doc comment; no file is over 300 lines, no function over 60 (but those
 * named with a reason), few lines over 140; identifiers keep to one word per idea; the README's
 * architecture section names every folder; and every path the README and docs name exists.
 */
import { test } from "node:test";
import ts from "typescript";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { repoRoot } from "./helpers/runtime.ts";

/** Highest first: each may import only from those after it (and from itself). */
const ORDER = [
  "main.ts",
  "cli",
  "serve.ts",
  "upstream/http",
  "upstream",
  "upstream/access",
  "upstream/catalog",
  "upstream/era",
  "tools",
  "tools/pipeline",
  "code",
  "search",
  "toolboxes",
  "trust",
  "cache",
  "downstream",
  "downstream/era",
  "downstream/links",
  "auth",
  "address",
  "config",
  "telemetry",
  "transport",
  "protocol",
  "store",
  "platform",
];
const MAX_LINES = 300;

const src = `${repoRoot}/src`;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [relative(src, path)] : [];
  });
}

/** The folder a file lives in, relative to src/ (a loose file is its own). */
function unitOf(file: string): string {
  const folder = dirname(file);
  return folder === "." ? file : folder;
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/gs;

function importsOf(file: string): string[] {
  const text = readFileSync(`${src}/${file}`, "utf8");
  return [...text.matchAll(IMPORT)]
    .map(([, plain, dynamic]) => normalize(join(dirname(file), plain ?? dynamic)))
    .filter((target) => target.endsWith(".ts") && !target.startsWith(".."));
}

const files = sourceFiles(src);
const edges = new Map(files.map((file) => [file, importsOf(file)]));

test("layout: every folder of src/ has its place in the order", () => {
  const units = [...new Set(files.map(unitOf))].sort();
  assert.deepEqual(units.filter((unit) => !ORDER.includes(unit)), [], "folders missing from ORDER");
  assert.deepEqual(ORDER.filter((unit) => !units.includes(unit)), [], "ORDER names folders that are gone");
});

test("layout: no import points back up the order", () => {
  const back: string[] = [];
  for (const [file, targets] of edges) {
    for (const target of targets) {
      const from = ORDER.indexOf(unitOf(file));
      const to = ORDER.indexOf(unitOf(target));
      if (from !== to && to < from) back.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(back, []);
});

test("layout: no import cycle between files", () => {
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]) => {
    state.set(file, "open");
    for (const target of edges.get(file) ?? []) {
      if (state.get(target) === "open") cycles.push([...path.slice(path.indexOf(target)), target].join(" -> "));
      else if (!state.has(target)) visit(target, [...path, target]);
    }
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file, [file]);
  assert.deepEqual(cycles, []);
});

test("layout: every file of src/ starts with a doc comment that says what it is for", () => {
  assert.deepEqual(files.filter((file) => !readFileSync(`${src}/${file}`, "utf8").startsWith("/**")), []);
});

test(`layout: no file of src/ is over ${MAX_LINES} lines`, () => {
  const long = files
    .map((file) => ({ file, lines: readFileSync(`${src}/${file}`, "utf8").split("\n").length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines}`);
  assert.deepEqual(long, []);
});

/**
 * Words retired from identifiers (issue 47), each with the word that took its place: one word per
 * idea. A comment may still say "connection" of a TCP connection, and so may the platform's code,
 * where a connection is one (to Redis); elsewhere a server's session is not called one.
 */
const RETIRED: [RegExp, string][] = [
  [/\bSearchCatalog\b/, "SessionSearch (the catalog is what a server offers, not the search over it)"],
  [/\bCatalog(Entry|Answer)\b/, "SearchedTool, SessionSearchAnswer"],
  [/\.connection\b|\b(const|let|var)\s+connection\b|\(connection\)|\bconnection\??:\s*ServerSession/, "serverSession (a server's session, not a connection)"],
  [/\b(Connection(Host|Target)|connectionHost|liveConnection|closeConnections)\b/, "ServerSessionHost, ServerTarget, sessionHost, liveSession"],
];

/** The code of a line: what is before a line comment, nothing for a line of a block comment. */
const codeOf = (line: string) => /^\s*(\*|\/\*|\/\/)/.test(line) ? "" : line.replace(/\s\/\/\s.*$/, "");

test("layout: no identifier of src/ uses a retired word", () => {
  const found: string[] = [];
  for (const file of files) {
    // The platform's connections are connections (to Redis, say): only the search's words hold there.
    const words = file.startsWith("platform/") ? RETIRED.slice(0, 2) : RETIRED;
    readFileSync(`${src}/${file}`, "utf8").split("\n").forEach((line, index) => {
      for (const [word, instead] of words) if (word.test(codeOf(line))) found.push(`${file}:${index + 1}: ${word.source}: say ${instead}`);
    });
  }
  assert.deepEqual(found, []);
});

/**
 * Function length (60 lines) and line width (140 characters), as ../shared/tools/house.mjs counts
 * them (issue 47). A function may stay long only with its reason here: a measured hot loop, or a
 * split still owed (each named, so that splitting it means taking it off this list).
 */
const LONG_FUNCTIONS: Record<string, string> = {
  "transport/json-scan.ts scanJson": "a measured hot loop (its comment says why it is one function)",
};
/** Lines over 140 characters in src/ at most (issue 47: 208 before, 19 after; none since 2026-12-05). */
const WIDE_LINES_AT_MOST = 0;

test("layout: no function of src/ is over 60 lines but those named with their reason; no line over 140 characters", () => {
  const long: string[] = [];
  let wide = 0;
  for (const file of files) {
    const text = readFileSync(`${src}/${file}`, "utf8");
    wide += text.split("\n").filter((line) => line.length > 140).length;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const last = source.getLineAndCharacterOfPosition(node.end).line;
        const name = (node as ts.FunctionLikeDeclaration).name?.getText(source) ?? "(anonymous)";
        if (last - first + 1 > 60) long.push(`${file} ${name}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  assert.deepEqual(long.sort(), Object.keys(LONG_FUNCTIONS).sort());
  assert.ok(wide <= WIDE_LINES_AT_MOST, `${wide} lines over 140 characters in src/, at most ${WIDE_LINES_AT_MOST}`);
});

test("layout: the README's architecture section names every folder", () => {
  const readme = readFileSync(`${repoRoot}/README.md`, "utf8");
  const section = readme.slice(readme.indexOf("## Architecture"));
  assert.ok(readme.includes("## Architecture"), "README.md has an Architecture section");
  const missing = ORDER.filter((unit) => !unit.endsWith(".ts") && !section.includes(`${unit}/`));
  assert.deepEqual(missing, []);
});

test("layout: every path of the repository the README and docs/ name exists (a moved file is not left named)", () => {
  const documents = ["README.md", ...readdirSync(`${repoRoot}/docs`).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
  const stale: string[] = [];
  for (const document of documents) {
    const text = readFileSync(`${repoRoot}/${document}`, "utf8");
    // `src/x/`, `tests/e2e/y.test.ts`, `scripts/bench.ts`, and src-relative `tools/tool-call.ts` in code spans.
    for (const [, path] of text.matchAll(/`((?:src|tests|scripts|packaging|examples)\/[^`\s*]*|[a-z-]+(?:\/[a-z0-9-]+)*\/[a-z0-9-]+\.ts)`/g)) {
      const plain = path.replace(/\/$/, "");
      const found = [plain, `src/${plain}`].some((candidate) => {
        try {
          statSync(`${repoRoot}/${candidate}`);
          return true;
        } catch {
          return false;
        }
      });
      if (!found) stale.push(`${document}: ${path}`);
    }
  }
  assert.deepEqual(stale, []);
});

test("layout: no test file groups tests with describe: Bun counts its tests one by one, Deno as one test with steps, and the suite holds the two counts equal", () => {
  const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith(".test.ts") ? [path] : [];
  });
  // Spelled in two parts, so that this file does not find itself.
  const call = new RegExp(`\\b${"desc"}ribe\\s*\\(`);
  const grouped = files(`${repoRoot}/tests`).filter((path) => call.test(readFileSync(path, "utf8").replace(/\/\/.*$/gm, "")));
  assert.deepEqual(grouped.map((path) => relative(repoRoot, path)), []);
});
