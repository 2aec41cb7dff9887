/** How tests start things with the runtime that runs them (Bun or Deno), and where things are. */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";

export const isDeno = "Deno" in globalThis;
export const runtimeName = isDeno ? "deno" : "bun";
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
export const fixture = (name: string) => `${repoRoot}/tests/fixtures/${name}`;

/** Permissions the workbench needs under `deno run`: config and modules, env, children, remote servers, the listing cache and logins. */
export const DENO_RUN_FLAGS = ["--allow-read", "--allow-env", "--allow-run", "--allow-net", "--allow-write"];

/** Command and arguments that run a TypeScript file with the current runtime. */
export function runScript(script: string, args: string[] = []): { command: string; args: string[] } {
  return isDeno
    ? { command: process.execPath, args: ["run", "-A", "--quiet", script, ...args] }
    : { command: process.execPath, args: [script, ...args] };
}

/** A server entry for workbench-config.json that runs one of our fixtures. */
export function fixtureServer(name: string, extra: Record<string, unknown> = {}) {
  return { ...runScript(fixture(name)), ...extra };
}

/** The system under test: a built executable when WORKBENCH_BIN names one, else the source. */
export function workbenchCommand(args: string[] = []): { command: string; args: string[] } {
  const bin = process.env.WORKBENCH_BIN;
  if (bin) return { command: bin, args };
  const main = `${repoRoot}/src/main.ts`;
  return isDeno
    ? { command: process.execPath, args: ["run", ...DENO_RUN_FLAGS, "--quiet", main, ...args] }
    : { command: process.execPath, args: [main, ...args] };
}

/** A reference server from npm, run by the current runtime. */
export function npmServer(pkg: "everything" | "memory" | "filesystem", args: string[] = []) {
  return runScript(`${repoRoot}/node_modules/@modelcontextprotocol/server-${pkg}/dist/index.js`, args);
}

/** The few system tools tests let the workbench find on PATH (for servers like `sh -c ...`). */
const TOOLS = ["sh", "cat", "env", "sleep", "true", "false", "pwd"];
let toolsDir: string | undefined;
let cacheDirs = 0;

/**
 * The environment the workbench runs with in tests: a PATH with a handful of system tools and no
 * `node`, which proves it needs no Node.js at run time (every fixture is started by absolute path),
 * and a listing cache directory of its own (not yet created), so that no test sees another's tool
 * counts or writes to the user's cache.
 */
export function workbenchEnv(extra: Record<string, string> = {}): Record<string, string> {
  if (!toolsDir) {
    toolsDir = mkdtempSync(`${tmpdir()}/workbench-path-`);
    removeAtExit(toolsDir);
    for (const tool of TOOLS) {
      const found = ["/usr/bin", "/bin"].map((dir) => `${dir}/${tool}`).find((path) => existsSync(path));
      if (found) symlinkSync(found, `${toolsDir}/${tool}`);
    }
  }
  const cache = `${toolsDir}/cache-${process.pid}-${++cacheDirs}`;
  return { PATH: toolsDir, HOME: process.env.HOME ?? tmpdir(), WORKBENCH_CACHE_DIR: cache, ...extra };
}

/**
 * The tools folder serves every test file the process runs (Bun runs them all in one process,
 * Deno loads this module once per file), so no test's `after` owns it: it goes when the process
 * or the module's realm ends. Bun gives `exit`, `deno test` only `unload`.
 */
export function removeAtExit(dir: string): void {
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once("exit", remove);
  globalThis.addEventListener?.("unload", remove, { once: true });
}
