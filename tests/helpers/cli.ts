/** Runs the workbench's subcommands (source or WORKBENCH_BIN) to the end, for the CLI tests. */
import process from "node:process";
import { readdirSync, readFileSync } from "node:fs";
import { type Completed, runToEnd } from "./process.ts";
import { isDeno, workbenchCommand, workbenchEnv } from "./runtime.ts";

/**
 * `mcp-workbench ARGS`: under `deno run` from source it also gets --allow-write (init writes files;
 * serving never does, so workbenchCommand leaves it out).
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<Completed> {
  const { command, args: full } = workbenchCommand(args);
  const withWrite = isDeno && !process.env.WORKBENCH_BIN ? [full[0], "--allow-write", ...full.slice(1)] : full;
  return runToEnd(command, withWrite, {
    env: workbenchEnv(options.env),
    cwd: options.cwd,
    input: options.input,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
}

/** Live processes whose command line holds `marker`: what a test's servers left behind. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
      if (state === "Z") continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}
