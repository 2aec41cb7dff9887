/**
 * The whole suite: type checks, then the same tests under Bun and under Deno. Fails unless both
 * runtimes pass and ran the same number of tests. Run with `npm test` (or `bun scripts/test.ts`).
 * Extra arguments (files or folders) narrow the run.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";

const root = new URL("..", import.meta.url).pathname;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
const only = process.argv.slice(2);
// Every run gets a temp dir of its own: what the tests leave there is theirs alone, whatever else
// runs on this machine meanwhile. It is checked at the end (see leftInTemp) and removed in any case.
const suiteTemp = mkdtempSync(`${tmpdir()}/mcp-workbench-suite-`);
process.on("exit", () => rmSync(suiteTemp, { recursive: true, force: true }));
const env = { ...process.env, NO_COLOR: "1", TMPDIR: suiteTemp };

function run(title: string, command: string, args: string[], extraEnv: Record<string, string> = {}): string {
  console.log(`\n=== ${title}: ${[command.replace(root, ""), ...args].join(" ")}`);
  const result = spawnSync(command, args, {
    cwd: root,
    env: { ...env, ...extraEnv },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  process.stdout.write(output);
  if (result.status !== 0) {
    // Again at the end, where a log cut to its tail still shows why (a CI record keeps only the tail).
    const details = failureDetails(output);
    if (details) console.error(`\n=== What failed in ${title}, again:\n${details}`);
    console.error(`\n${title} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
  return output;
}

/** Most lines of failure detail repeated at the end. */
const DETAIL_LINES = 120;

/**
 * Bun's report of each failed test: the lines between the previous test's line and its `(fail)`
 * line (its assertion and stack, and what it wrote to stderr: stdout comes before all of stderr
 * here; the first and last lines when long); Deno's ERRORS section.
 */
function failureDetails(output: string): string {
  const lines = output.split("\n");
  const errors = lines.findIndex((line) => line.trim() === "ERRORS");
  if (errors >= 0) return lines.slice(errors, errors + DETAIL_LINES).join("\n");
  const blocks: string[] = [];
  let from = 0;
  for (let index = 0; index < lines.length && !/^\d+ tests? failed:$/.test(lines[index]); index++) {
    if (/^\(fail\) /.test(lines[index])) blocks.push(shortened(lines.slice(from, index + 1)));
    if (/^\((pass|fail|skip|todo)\) |^\S.*\.test\.ts:$/.test(lines[index])) from = index + 1;
  }
  return blocks.join("\n\n").split("\n").slice(-DETAIL_LINES).join("\n");
}

/** A long block's first 30 lines (the assertion) and last 15 (the stack, the test's name). */
function shortened(block: string[]): string {
  if (block.length <= 45) return block.join("\n");
  return [...block.slice(0, 30), `[${block.length - 45} lines]`, ...block.slice(-15)].join("\n");
}

function count(output: string, pattern: RegExp, runtime: string): number {
  const match = output.match(pattern);
  if (!match) {
    console.error(`Could not read the test count of ${runtime}`);
    process.exit(1);
  }
  return Number(match[1]);
}

run("deno check", bin("deno"), ["check", "src/", "tests/", "scripts/"]);
run("tsc (Bun types)", bin("tsc"), ["-p", "tsconfig.json"]);
// The per-test timeout comes from bunfig.toml's preload, as it does for a plain `bun test`.
const bunOutput = run("bun test", bin("bun"), ["test", ...only]);
const denoOutput = run("deno test", bin("deno"), ["test", "--allow-all", ...(only.length ? only : ["tests/"])]);

const bunPassed = count(bunOutput, /^\s*(\d+) pass$/m, "bun");
const denoPassed = count(denoOutput, /^ok \| (\d+) passed/m, "deno");
console.log(`\nbun: ${bunPassed} passed; deno: ${denoPassed} passed`);
if (bunPassed !== denoPassed || bunPassed === 0) {
  console.error("The two runtimes ran a different number of tests (or none)");
  process.exit(1);
}

// The end-to-end suite again, against the built executables (issue: no Node.js at run time).
let binPassed = 0;
if (only.length === 0 || only.some((path) => path.includes("e2e"))) {
  run("build", bin("bun"), ["scripts/build.ts"]);
  const bunBin = run("e2e against dist/mcp-workbench", bin("bun"), ["test", "tests/e2e"], {
    WORKBENCH_BIN: `${root}dist/mcp-workbench`,
  });
  binPassed += count(bunBin, /^\s*(\d+) pass$/m, "bun (executable)");
  const denoBin = denoExecutable();
  if ("skip" in denoBin) {
    console.log(`\nSKIPPED e2e against the Deno executable: ${denoBin.skip}`);
  } else {
    const output = run("e2e against dist/mcp-workbench-deno", bin("bun"), ["test", "tests/e2e"], {
      WORKBENCH_BIN: denoBin.path,
    });
    binPassed += count(output, /^\s*(\d+) pass$/m, "bun (deno executable)");
  }
}
const left = leftInTemp();
if (left.length > 0) {
  console.error(`\nThe tests left ${left.length} folder(s) or file(s) of ours in the temp dir: ${left.join(", ")}`);
  // What is in them says which test (or which late writer) left them.
  for (const name of left) console.error(`  ${name}: ${listTree(`${suiteTemp}/${name}`).join(", ") || "(empty)"}`);
  process.exit(1);
}
console.log(`${bunPassed + denoPassed + binPassed} passed, 0 failed`);

/**
 * What the tests made in the temp dir and did not remove (every test removes what it makes): ours
 * by name, since the runtimes may keep files of their own there.
 */
function leftInTemp(): string[] {
  return readdirSync(suiteTemp).filter((name) => /^(mcp-)?workbench-/.test(name)).sort();
}

/** The paths under a folder (at most 20), for the leftover report. */
function listTree(dir: string): string[] {
  try {
    return (readdirSync(dir, { recursive: true }) as string[]).slice(0, 20);
  } catch {
    return [];
  }
}

/** `deno task compile`, when a denort runtime can be had (DENORT_BIN, or a download). */
function denoExecutable(): { path: string } | { skip: string } {
  const result = spawnSync(bin("deno"), ["task", "compile"], { cwd: root, env, encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) return { skip: `deno compile could not build (no denort: set DENORT_BIN)` };
  const path = `${root}dist/mcp-workbench-deno`;
  const version = spawnSync(path, ["--version"], { encoding: "utf8" }).stdout ?? "";
  if (!version.startsWith("mcp-workbench ")) return { skip: "DENORT_BIN is not a denort binary" };
  return { path };
}
