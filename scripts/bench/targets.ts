/** What runs: the workbench for each target, the fixture server, the reference servers, and the build. */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import process from "node:process";
import type { Command } from "./rpc-client.ts";

export const TARGETS = ["bun", "deno", "bin"] as const;
export type Target = typeof TARGETS[number];

export const repoRoot = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
export const BUN = `${repoRoot}/node_modules/.bin/bun`;
export const DENO = `${repoRoot}/node_modules/.bin/deno`;
export const EXECUTABLE = `${repoRoot}/dist/mcp-workbench`;
const MAIN = `${repoRoot}/src/main.ts`;
const FIXTURE = `${repoRoot}/tests/fixtures/bench-server.ts`;
const BUILD_TIMEOUT_MS = 300_000;

/** The workbench as each target runs it, serving the configuration at `configPath`. */
export function workbenchCommand(target: Target, configPath: string): Command {
  const config = ["--config", configPath];
  switch (target) {
    case "bun":
      return { command: BUN, args: [MAIN, ...config] };
    case "deno":
      return { command: DENO, args: ["run", "--allow-read", "--allow-env", "--allow-run", "--allow-net", "--allow-write", MAIN, ...config] };
    case "bin":
      return { command: EXECUTABLE, args: config };
  }
}

/**
 * The fixture server, always run by node_modules/.bin/bun: the workbench's downstream and the
 * direct baseline are then the same process whatever the target.
 */
export function fixtureCommand(label = "bench"): Command & { env: Record<string, string> } {
  return { command: BUN, args: [FIXTURE], env: { BENCH_LABEL: label } };
}

export type ReferenceServer = "everything" | "memory" | "filesystem";

/** A reference server from npm, run by bun like the fixture. */
export function referenceCommand(name: ReferenceServer, args: string[] = []): Command {
  const script = `${repoRoot}/node_modules/@modelcontextprotocol/server-${name}/dist/index.js`;
  return { command: BUN, args: [script, ...args] };
}

/** Builds dist/mcp-workbench with the project's own build script when it is not there. */
export function ensureExecutable(): void {
  if (existsSync(EXECUTABLE)) return;
  console.log("dist/mcp-workbench is missing: building it (bun scripts/build.ts)");
  const result = spawnSync(BUN, [`${repoRoot}/scripts/build.ts`], { stdio: "inherit", timeout: BUILD_TIMEOUT_MS });
  if (result.status !== 0 || !existsSync(EXECUTABLE)) throw new Error("the build failed");
}

export function executableBytes(): number | undefined {
  return existsSync(EXECUTABLE) ? statSync(EXECUTABLE).size : undefined;
}

/** Versions of what ran, for the record. */
export function runtimeVersions(): Record<string, string> {
  const first = (command: string, args: string[]) =>
    (spawnSync(command, args, { encoding: "utf8", timeout: 10_000 }).stdout ?? "").split("\n")[0].trim();
  return {
    bun: first(BUN, ["--version"]),
    deno: first(DENO, ["--version"]),
    executable: existsSync(EXECUTABLE) ? first(EXECUTABLE, ["--version"]) : "not built",
    benchRunner: "Deno" in globalThis ? `deno ${process.versions.deno ?? ""}` : `bun ${process.versions.bun ?? ""}`,
  };
}
