/**
 * Release packaging:
 *   bun scripts/release.ts [--version X.Y.Z] [--out DIR] [--targets linux-x64,darwin-arm64,...] [--base-url URL]
 * Compiles the single-file executable for each target with `bun build --compile`, packs it
 * (tar.gz, or zip for Windows), then writes SHA256SUMS, a Homebrew formula and a Scoop manifest.
 * A target that fails is reported and skipped; the run fails only when this machine's own target (if asked
 * for) or every target fails.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { packArchive } from "./release/archives.ts";
import { CHECKSUMS_FILE, writeChecksums } from "./release/checksums.ts";
import { compileTarget } from "./release/compile.ts";
import {
  describeArchive,
  FORMULA_FILE,
  FORMULA_TEMPLATE,
  type ReleaseArchive,
  type ReleaseInfo,
  renderFormula,
  renderScoopManifest,
  SCOOP_FILE,
  SCOOP_TEMPLATE,
} from "./release/manifests.ts";
import { hostTarget, parseTargetList, type Target, TARGETS } from "./release/targets.ts";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const BUN = `${root}/node_modules/.bin/bun`;
const ENTRY = `${root}/src/main.ts`;
/**
 * Placeholder home of the project: homepage, Scoop's checkver and the default download location
 * all derive from it. Maintainers change it here once the repository is public (or pass --base-url).
 */
const REPOSITORY = "https://github.com/mcp-workbench/mcp-workbench";
const USAGE =
  "Usage: bun scripts/release.ts [--version X.Y.Z] [--out DIR] [--targets linux-x64,darwin-arm64,...] [--base-url URL]";
const FLAGS = ["--version", "--out", "--targets", "--base-url"];

interface PackageJson {
  version: string;
  description: string;
  license: string;
}

interface Options {
  version: string;
  outDir: string;
  targets: Target[];
  baseUrl: string;
}

type Outcome =
  | { target: Target; ok: true; archive: ReleaseArchive; bytes: number; seconds: number }
  | { target: Target; ok: false; reason: string };

function readFlags(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const [flag, inline] = argv[index].split(/=(.*)/s, 2);
    if (!FLAGS.includes(flag)) throw new Error(`Unknown argument "${argv[index]}"`);
    const value = inline ?? argv[++index];
    if (!value) throw new Error(`Option "${flag}" needs a value`);
    flags.set(flag, value);
  }
  return flags;
}

function parseOptions(argv: string[], pkg: PackageJson): Options {
  const flags = readFlags(argv);
  const version = flags.get("--version") ?? pkg.version;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`Version "${version}" is not of the form X.Y.Z`);
  const baseUrl = (flags.get("--base-url") ?? `${REPOSITORY}/releases/download/v${version}`).replace(/\/+$/, "");
  if (!/^https?:\/\//.test(baseUrl)) throw new Error(`Base URL "${baseUrl}" is not an http(s) URL`);
  return {
    version,
    outDir: resolve(flags.get("--out") ?? `${root}/dist/release/${version}`),
    targets: flags.has("--targets") ? parseTargetList(flags.get("--targets") ?? "") : [...TARGETS],
    baseUrl,
  };
}

/** Any version's archive for one of our targets: what an earlier run into the same directory left. */
const OUR_ARCHIVE = new RegExp(`^mcp-workbench-.+-(${TARGETS.map((target) => target.id).join("|")})\\.(tar\\.gz|zip)$`);

/** A rerun with fewer targets must not leave last run's archives beside a SHA256SUMS that omits them. */
function removeStaleOutputs(outDir: string): void {
  const names = readdirSync(outDir).filter((name) => OUR_ARCHIVE.test(name));
  for (const name of [...names, CHECKSUMS_FILE, FORMULA_FILE, SCOOP_FILE]) rmSync(`${outDir}/${name}`, { force: true });
}

/** Said as soon as it happens, since the remaining targets may take minutes. */
function failed(target: Target, reason: string): Outcome {
  console.log(`Target "${target.id}" failed: ${reason}`);
  return { target, ok: false, reason };
}

function buildAndPack(target: Target, workDir: string, options: Options): Outcome {
  const started = performance.now();
  const stagingDir = `${workDir}/${target.id}`;
  mkdirSync(stagingDir);
  try {
    console.log(`Building ${target.id} (${target.bunTarget})...`);
    const compiled = compileTarget(BUN, ENTRY, target, stagingDir);
    if (!compiled.ok) return failed(target, compiled.reason);
    const path = packArchive(target, stagingDir, root, options.outDir, options.version);
    const archive = describeArchive(options.outDir, options.version, options.baseUrl, target);
    return { target, ok: true, archive, bytes: statSync(path).size, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    return failed(target, error instanceof Error ? error.message : String(error));
  } finally {
    // Each executable is about 100 MB: do not keep five of them around until the end.
    rmSync(stagingDir, { recursive: true, force: true });
  }
}

function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join("  "))
    .join("\n");
}

function mebibytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** The archive name or the failure's reason comes last, so a long reason does not widen the table. */
function printSummary(outcomes: Outcome[]): void {
  const rows = outcomes.map(({ target, ...outcome }) =>
    outcome.ok
      ? [target.id, target.bunTarget, "built", mebibytes(outcome.bytes), `${outcome.seconds.toFixed(1)} s`, outcome.archive.fileName]
      : [target.id, target.bunTarget, "FAILED", "-", "-", outcome.reason]
  );
  console.log(`\n${formatTable([["target", "bun target", "result", "size", "time", "archive or reason"], ...rows])}\n`);
}

function writeFormula(outDir: string, info: ReleaseInfo): void {
  if (!info.archives.some((archive) => archive.target.os !== "windows")) {
    console.log("Homebrew formula not written: no macOS or Linux archive was built");
    return;
  }
  const { text, missing } = renderFormula(readFileSync(FORMULA_TEMPLATE, "utf8"), info);
  writeFileSync(`${outDir}/${FORMULA_FILE}`, text);
  if (missing.length > 0) {
    const targets = missing.map((id) => `"${id}"`).join(", ");
    console.log(`Homebrew formula is incomplete: no archive for ${targets}, so their blocks are left out`);
  }
}

function writeScoopManifest(outDir: string, info: ReleaseInfo): void {
  const text = renderScoopManifest(readFileSync(SCOOP_TEMPLATE, "utf8"), info);
  if (text === undefined) console.log(`Scoop manifest not written: "windows-x64" was not built`);
  else writeFileSync(`${outDir}/${SCOOP_FILE}`, text);
}

/** The version is compiled in from package.json, so a different --version makes `--version` disagree. */
function warnIfVersionDiffers(requested: string, compiledIn: string): void {
  if (requested === compiledIn) return;
  console.log(
    `Warning: the executables report "${compiledIn}" (package.json), not "${requested}"; ` +
      `the formula's test expects "${requested}"`,
  );
}

function release(options: Options, pkg: PackageJson): number {
  warnIfVersionDiffers(options.version, pkg.version);
  mkdirSync(options.outDir, { recursive: true });
  removeStaleOutputs(options.outDir);
  const workDir = mkdtempSync(`${tmpdir()}/mcp-workbench-release-`);
  let outcomes: Outcome[];
  try {
    outcomes = options.targets.map((target) => buildAndPack(target, workDir, options));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  printSummary(outcomes);

  const host = hostTarget(process.platform, process.arch);
  if (outcomes.some((outcome) => !outcome.ok && outcome.target === host)) {
    console.error(`This machine's own target "${host?.id}" failed to build: nothing else written`);
    return 1;
  }
  const archives = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.archive] : []));
  if (archives.length === 0) {
    console.error("No target built: nothing else written");
    return 1;
  }
  writeChecksums(options.outDir, archives);
  const info: ReleaseInfo = {
    version: options.version,
    description: pkg.description,
    homepage: REPOSITORY,
    license: pkg.license,
    baseUrl: options.baseUrl,
    archives,
  };
  writeFormula(options.outDir, info);
  writeScoopManifest(options.outDir, info);
  console.log(`Release files are in ${options.outDir}`);
  return 0;
}

function main(argv: string[]): number {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  const pkg = JSON.parse(readFileSync(`${root}/package.json`, "utf8")) as PackageJson;
  let options: Options;
  try {
    options = parseOptions(argv, pkg);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 2;
  }
  try {
    return release(options, pkg);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}

process.exit(main(process.argv.slice(2)));
