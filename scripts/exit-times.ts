/**
 * How long each exit path takes, from its trigger until the workbench and everything under it are
 * gone; prints median, min and max per path.
 *   bun scripts/exit-times.ts [--runs 10] [--bin PATH]
 *   deno run -A scripts/exit-times.ts [--runs 10] [--bin PATH]
 * Measures the source under the runtime that runs this script, or the executable given by --bin
 * (as WORKBENCH_BIN does for the tests). The paths are the ones tests/e2e/exit-paths.test.ts checks.
 */
import process from "node:process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { isDeno } from "../tests/helpers/runtime.ts";
import { EXIT_PATHS, type ExitPath, prepare } from "../tests/fixtures/exit-paths.ts";

/** How long a run may take before we stop waiting and count what is left. */
const CAP_MS = 15_000;

const USAGE = "usage: exit-times.ts [--runs N] [--bin PATH-TO-AN-EXISTING-EXECUTABLE]";

function parseArgs(args: string[]): { runs: number; bin?: string } {
  let runs = 10;
  let bin: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--runs" && /^[1-9]\d*$/.test(value ?? "")) runs = Number(value);
    else if (flag === "--bin" && value && existsSync(value)) bin = resolve(value);
    else {
      console.error(USAGE);
      process.exit(2);
    }
    i++;
  }
  return { runs, bin };
}

interface Row {
  times: number[];
  /** Runs that left a process alive at the cap, or failed to start. */
  failed: number;
  overLimit: number;
}

async function measure(path: ExitPath, runs: number): Promise<Row> {
  const row: Row = { times: [], failed: 0, overLimit: 0 };
  for (let run = 0; run < runs; run++) {
    try {
      const prepared = await prepare(path);
      try {
        const { ms, left } = await prepared.pull(CAP_MS);
        if (left.length > 0) row.failed++;
        else row.times.push(ms);
        if (ms > path.limitMs) row.overLimit++;
      } finally {
        prepared.cleanup();
      }
    } catch (error) {
      row.failed++;
      console.error(`${path.name}: ${error instanceof Error ? error.message : error}`);
    }
  }
  return row;
}

function median(sorted: number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2);
}

const { runs, bin } = parseArgs(process.argv.slice(2));
// The test helpers start the workbench from WORKBENCH_BIN when it is set.
if (bin) process.env.WORKBENCH_BIN = bin;
const runtime = isDeno ? `deno ${process.versions.deno}` : `bun ${process.versions.bun}`;
console.log(`Exit times of ${bin ?? `the source under ${runtime}`} (fixtures under ${runtime}), ${runs} runs per path,`);
console.log(`in ms from the trigger until the workbench and all its descendants are gone:\n`);
const columns = (cells: (string | number)[]) => cells.map((cell, i) => i === 0 ? String(cell).padEnd(32) : String(cell).padStart(7)).join(" ");
console.log(columns(["path", "limit", "median", "min", "max", "over", "failed"]));
for (const path of EXIT_PATHS) {
  const row = await measure(path, runs);
  const sorted = row.times.sort((a, b) => a - b);
  const stats = sorted.length ? [median(sorted), sorted[0], sorted[sorted.length - 1]] : ["-", "-", "-"];
  console.log(columns([path.name, path.limitMs, ...stats, row.overLimit, row.failed]));
}
console.log(`\nTimes are polled every 25 ms. over: runs slower than the limit; failed: runs that left a process`);
console.log(`alive after ${CAP_MS / 1_000} s, or could not start (not in the times).`);
