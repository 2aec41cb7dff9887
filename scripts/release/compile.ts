/** Runs `bun build --compile` for one target; a failure comes back as its most telling line. */
import { spawnSync } from "node:child_process";
import process from "node:process";
import type { Target } from "./targets.ts";

/**
 * The flags of every build, here and in scripts/build.ts. Bytecode makes start-up about 40% faster
 * (measured 29 ms against 48 ms to the initialize response); it needs the ESM output format.
 * The JIT policy holds JavaScriptCore's compilers back (tier-up thresholds x256) until the client
 * has initialized (platform.startupDone): start-up code (the SDK's zod schemas above all) runs
 * once, and compiling it paged about 6 MiB of the compilers into memory for nothing.
 * Splitting puts what is imported lazily (telemetry's exporter, the Redis store, a member's login,
 * the search's thesaurus, ...) in chunks of its own, loaded with their first import: without it
 * the whole bundle's code was one module, paged in at start: RSS after initialize 47.6 MiB against
 * 46.7 split (scripts/compare-builds.ts start, each executable copied afresh just before: a file long
 * in the page cache maps fewer pages, up to 6 MiB fewer); the size is the same. Split, an entry's own
 * code runs after the chunks it imports: src/main.ts imports all but zod's configuration dynamically
 * (46.1 MiB then; docs/benchmarks.md, issue 47's floors).
 */
export const BUN_COMPILE_FLAGS = ["--compile", "--minify", "--bytecode", "--format=esm", "--splitting", "--compile-jit-policy=256"];

/**
 * Files compiled in beside the entry: code mode's sandbox runs in a worker, and a compiled
 * executable starts a worker only from a file it was built with (src/code/sandbox.ts names it).
 */
export const WORKER_ENTRIES = ["src/code/sandbox-worker.ts"];

/** A cross target's runtime is downloaded on first use, so allow for a slow network, but not forever. */
const COMPILE_TIMEOUT_MS = 300_000;

export type CompileResult = { ok: true; path: string } | { ok: false; reason: string };

export function compileTarget(bun: string, entry: string, target: Target, stagingDir: string): CompileResult {
  const path = `${stagingDir}/${target.executable}`;
  const root = entry.replace(/src\/main\.ts$/, "");
  const workers = WORKER_ENTRIES.map((file) => `${root}${file}`);
  const args = ["build", ...BUN_COMPILE_FLAGS, `--target=${target.bunTarget}`, entry, ...workers, "--outfile", path];
  const result = spawnSync(bun, args, {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: COMPILE_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const timedOut = (result.error as { code?: string } | undefined)?.code === "ETIMEDOUT";
  if (timedOut) return { ok: false, reason: `Timed out after ${COMPILE_TIMEOUT_MS / 1000} s` };
  if (result.error) return { ok: false, reason: result.error.message };
  if (result.signal) return { ok: false, reason: `Stopped by "${result.signal}"` };
  if (result.status !== 0) return { ok: false, reason: firstErrorLine(`${result.stderr}\n${result.stdout}`, result.status) };
  return { ok: true, path };
}

/** Bun prints progress before the error, so prefer the `error:` line, then the first line at all. */
export function firstErrorLine(output: string, status: number | null): string {
  const lines = output.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return lines.find((line) => /^error\b/i.test(line)) ?? lines[0] ?? `Exit code ${status}`;
}
