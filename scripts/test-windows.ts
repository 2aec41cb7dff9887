/**
 * The Windows executable, tested under Wine: `npm run test:windows [name...]`.
 * Builds the release for windows-x64 (zip, SHA256SUMS, Scoop manifest) and the fixture host (every
 * Windows-side helper of the tests in one executable); gets Wine ready (installed from Debian when
 * missing and possible, a prefix made once in dist/windows/prefix, the stand-ins Wine 8 needs);
 * then runs tests/windows/*.wine.ts against the .exe, a few files at a time, each file in a
 * `bun test` of its own. Prints `N passed, N failed` and exits 1 on a failure. Where Wine cannot be
 * had it says so in a SKIPPED line and exits 0. Names narrow the run to those files; `--no-build`
 * takes the executables of the last run as they are (while writing tests).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { readZip } from "./release/zip.ts";
import { haveWine, installStandInTaskkill, preparePrefix, run, stopWineserver, type Wine, wineEnvironment } from "./windows/wine.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const BUN = `${root}/node_modules/.bin/bun`;
/** Not committed (dist/ is ignored); the prefix in it is kept between runs. */
const BUILD = `${root}/dist/windows`;
const PREFIX = `${BUILD}/prefix`;
const TESTS = "tests/windows";
/** Files run at once: each runs its tests one after another, and Wine programs are slow to start. */
const CONCURRENCY = 3;
/** Per test: a Wine program takes 1 to 3 s to start on a loaded machine, where a native one takes 20 ms. */
const TEST_TIMEOUT_MS = 120_000;
const started = performance.now();
/** The test files' `bun test` processes still running. */
const running = new Set<ChildProcess>();

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const say = (line: string) => console.log(line);

async function timed<T>(what: string, step: () => Promise<T>): Promise<T> {
  const begun = performance.now();
  const result = await step();
  say(`${what}: ${seconds(begun)}`);
  return result;
}

/** The release for windows-x64, and its executable taken out of the zip as a user would. */
async function buildRelease(): Promise<string | undefined> {
  const version = JSON.parse(readFileSync(`${root}/package.json`, "utf8")).version;
  const args = [`${root}/scripts/release.ts`, "--targets", "windows-x64", "--out", `${BUILD}/release`];
  const failed = await run(BUN, args, { timeoutMs: 600_000 });
  if (failed) return failed;
  const zip = readZip(readFileSync(`${BUILD}/release/mcp-workbench-${version}-windows-x64.zip`));
  const exe = zip.find((entry) => entry.name === "mcp-workbench.exe");
  if (!exe) return "The release's zip holds no mcp-workbench.exe";
  mkdirSync(`${BUILD}/bin`, { recursive: true });
  writeFileSync(`${BUILD}/bin/mcp-workbench.exe`, exe.data);
  return undefined;
}

/** Every Windows-side helper of the tests in one executable: each costs about 110 MiB and 2 s to compile. */
function buildHost(): Promise<string | undefined> {
  const host = `${root}/${TESTS}/fixtures/host.ts`;
  const args = ["build", "--compile", "--target=bun-windows-x64", host, "--outfile", `${BUILD}/bin/fixture-host.exe`];
  return run(BUN, args, { timeoutMs: 300_000 });
}

/** Wine and its prefix; or why Wine cannot be had (the suite skips), or why the prefix failed (it fails). */
async function readyWine(): Promise<Wine | { missing: string } | { failed: string }> {
  const wine = await haveWine(say);
  if ("missing" in wine) return wine;
  const failed = await preparePrefix(wine, PREFIX, say);
  if (!failed) return wine;
  await stopWineserver(wine, PREFIX);
  return { failed: `The Wine prefix could not be made: ${failed}` };
}

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  output: string;
  ok: boolean;
}

function runFile(file: string, env: Record<string, string>): Promise<FileResult> {
  return new Promise((resolve) => {
    const args = ["test", "--timeout", String(TEST_TIMEOUT_MS), `./${TESTS}/${file}`];
    const child = spawn(BUN, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => {
      running.delete(child);
      const passed = Number(output.match(/^\s*(\d+) pass$/m)?.[1] ?? 0);
      const failed = Number(output.match(/^\s*(\d+) fail$/m)?.[1] ?? 0);
      // A file that could not even load counts as one failure.
      resolve({ file, passed, failed: code !== 0 && failed === 0 ? 1 : failed, output, ok: code === 0 });
    });
  });
}

/** Runs the files CONCURRENCY at a time, printing each file's results as it ends. */
async function runFiles(files: string[], env: Record<string, string>): Promise<FileResult[]> {
  const queue = [...files];
  const results: FileResult[] = [];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runFile(file, env);
      results.push(result);
      const lines = result.ok ? result.output.split("\n").filter((line) => /^\((pass|skip)\)/.test(line)) : [result.output];
      say(`\n--- ${file}: ${result.passed} passed, ${result.failed} failed\n${lines.join("\n")}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

function testFiles(only: string[]): string[] {
  const all = readdirSync(`${root}/${TESTS}`).filter((name) => name.endsWith(".wine.ts")).sort();
  return only.length === 0 ? all : all.filter((name) => only.some((wanted) => name.includes(wanted)));
}

async function main(argv: string[]): Promise<number> {
  mkdirSync(BUILD, { recursive: true });
  const build = !argv.includes("--no-build");
  const only = argv.filter((arg) => arg !== "--no-build");
  const [wine, built] = await Promise.all([
    timed("Wine ready", readyWine),
    build ? timed("Built the release and the fixture host", async () => await buildRelease() ?? await buildHost()) : undefined,
  ]);
  if ("missing" in wine) {
    say(`SKIPPED the Windows suite: ${wine.missing}`);
    return 0;
  }
  if ("failed" in wine || built) {
    console.error("failed" in wine ? wine.failed : `The build failed: ${built}`);
    if (!("failed" in wine)) await stopWineserver(wine, PREFIX);
    return 1;
  }
  installStandInTaskkill(PREFIX, `${BUILD}/bin/fixture-host.exe`);
  // The tests' folders go into a temp dir of the run's own, removed at the end whatever a test left.
  // Not through TMPDIR: Debian's Wine keeps its server's socket under it, and every Wine program of
  // the run must find the one wineserver kept up.
  const temp = mkdtempSync(`${tmpdir()}/workbench-wine-suite-`);
  const env: Record<string, string> = { ...process.env as Record<string, string>, ...wineEnvironment(PREFIX), NO_COLOR: "1" };
  Object.assign(env, { WORKBENCH_WINE_DIR: BUILD, WORKBENCH_WINE: wine.wine, WORKBENCH_WINE_TEMP: temp });
  for (const name of ["WORKBENCH_CONFIG", "WORKBENCH_BIN", "WORKBENCH_TOOLBOXES"]) delete env[name];
  let finished: Promise<void> | undefined;
  const finish = () =>
    finished ??= (async () => {
      for (const child of running) child.kill("SIGKILL");
      await stopWineserver(wine, PREFIX);
      rmSync(temp, { recursive: true, force: true });
    })();
  // Stopped by hand: the tests, the wineserver kept up for the run and what the tests left in Wine go too.
  let interrupted = false;
  process.once("SIGINT", () => {
    interrupted = true;
    void finish();
  });
  let results: FileResult[];
  try {
    results = await timed("Tests", () => runFiles(testFiles(only), env));
  } finally {
    await finish();
  }
  if (interrupted) {
    say("Interrupted: the tests still running were stopped");
    return 130;
  }
  const passed = results.reduce((sum, result) => sum + result.passed, 0);
  const failed = results.reduce((sum, result) => sum + result.failed, 0);
  say(`\n${wine.version}, ${results.length} files, in ${seconds(started)}`);
  say(`${passed} passed, ${failed} failed`);
  return failed > 0 || passed === 0 ? 1 : 0;
}

process.exit(await main(process.argv.slice(2)));
