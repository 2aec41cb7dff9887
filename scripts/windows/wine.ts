/**
 * Wine for the Windows suite (scripts/test-windows.ts): found, or installed from Debian when it is
 * missing and we may (root, apt-get); a prefix made once and kept in the build folder; and what
 * Wine 8 lacks put into it: the stand-in bcryptprimitives.dll (without it no Bun executable starts)
 * and a stand-in taskkill.exe that takes `/t` (used only where a test asks for it).
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname } from "node:path";
import process from "node:process";
import { standInBcryptPrimitives } from "./stand-in-dll.ts";

export interface Wine {
  /** The launcher (`wine`) and the server (`wineserver`) of this Wine. */
  wine: string;
  wineserver: string;
  version: string;
}

/** What every Wine process of the suite runs with: no debug noise (tests read stderr), no Mono or Gecko prompts. */
export function wineEnvironment(prefix: string): Record<string, string> {
  return { WINEPREFIX: prefix, WINEDEBUG: "-all", WINEDLLOVERRIDES: "mscoree,mshtml=" };
}

function versionOf(command: string): string | undefined {
  const result = spawnSync(command, ["--version"], { encoding: "utf8", timeout: 60_000, env: { ...process.env, WINEDEBUG: "-all" } });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** Debian puts wineserver outside PATH on some versions. */
function findWine(): Wine | undefined {
  const version = versionOf("wine");
  if (version === undefined) return undefined;
  const wineserver = ["wineserver", "/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver"].find((path) => versionOf(path) !== undefined);
  return wineserver === undefined ? undefined : { wine: "wine", wineserver, version };
}

/**
 * Runs a command to its end (or `timeoutMs`, then it is killed), its output into a file rather than
 * a pipe: wineserver and Wine's services outlive the command that started them and keep what it
 * was given open. Resolves with a failure's reason and the output's last lines, or undefined.
 */
export function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs: number; ok?: number[] },
): Promise<string | undefined> {
  const log = `${mkdtempSync(`${tmpdir()}/workbench-wine-run-`)}/output`;
  const fd = openSync(log, "w");
  return new Promise<string | undefined>((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", fd, fd], env: { ...process.env, ...options.env } });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("error", (error) => resolve(`'${command}' could not start: ${error.message}`));
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      const tail = readFileSync(log, "utf8").trim().split("\n").slice(-5).join("\n");
      const ok = code !== null && (options.ok ?? [0]).includes(code);
      resolve(ok ? undefined : `'${[command, ...args].join(" ")}' ended with ${code ?? signal}: ${tail}`);
    });
  }).finally(() => {
    closeSync(fd);
    rmSync(dirname(log), { recursive: true, force: true });
  });
}

/** Debian's wine and wine64, without recommends (no i386, no 32-bit part): about 40 s and 700 MB. */
async function installWine(say: (line: string) => void): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return "is not installed, and only root may install it";
  const aptGet = spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0;
  if (!aptGet) return "is not installed, and there is no apt-get to install it";
  say("Installing Wine (apt-get install --no-install-recommends wine wine64)...");
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  const failed = await run("apt-get", ["update", "-qq"], { env, timeoutMs: 300_000 }) ??
    await run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "wine", "wine64"], { env, timeoutMs: 600_000 });
  return failed && `could not be installed: ${failed}`;
}

/** Wine, installed first when it is missing and may be; or why it cannot be had. */
export async function haveWine(say: (line: string) => void): Promise<Wine | { missing: string }> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return { missing: `Wine runs the x64 executable only on x64 Linux, not ${process.platform}-${process.arch}` };
  }
  const found = findWine();
  if (found) return found;
  const failed = await installWine(say);
  if (failed) return { missing: `Wine ${failed}` };
  return findWine() ?? { missing: "Wine was installed, but 'wine --version' or 'wineserver --version' does not run" };
}

/** The file that says the prefix is whole, and for which Wine it was made. */
const STAMP = "workbench-prefix";

/**
 * Starts the prefix's wineserver, to stay up until `wineserver -k` (every Wine program then starts
 * in about 1 s, not 3), after making the prefix when it is missing, half made or from another Wine
 * (about 15 s; kept otherwise). Resolves with a failure's reason, or undefined.
 */
export async function preparePrefix(wine: Wine, prefix: string, say: (line: string) => void): Promise<string | undefined> {
  const stamp = `${prefix}/${STAMP}`;
  const env = wineEnvironment(prefix);
  const fresh = !existsSync(stamp) || readFileSync(stamp, "utf8") !== wine.version;
  if (fresh) {
    say(`Making the Wine prefix ${prefix}...`);
    rmSync(prefix, { recursive: true, force: true });
    mkdirSync(prefix, { recursive: true });
  }
  // The server is found by the prefix folder's inode: started after the folder is made. It exits
  // with 2 when the prefix has one running already (a run before this one, or by hand): that one serves.
  const failed = await run(wine.wineserver, ["-p"], { env, timeoutMs: 30_000, ok: [0, 2] }) ??
    (fresh ? await run(wine.wine, ["wineboot", "-u"], { env, timeoutMs: 300_000 }) : undefined);
  if (failed) return failed;
  if (fresh) writeFileSync(stamp, wine.version);
  writeFileSync(`${prefix}/drive_c/windows/system32/bcryptprimitives.dll`, standInBcryptPrimitives());
  return undefined;
}

/** Ends the prefix's wineserver and every Wine program still running in it. */
export function stopWineserver(wine: Wine, prefix: string): Promise<string | undefined> {
  return run(wine.wineserver, ["-k"], { env: wineEnvironment(prefix), timeoutMs: 30_000 });
}

/**
 * The fixture host, copied over system32's taskkill.exe, plays a taskkill that takes `/t`. Wine
 * runs its own builtin taskkill unless a process has `taskkill.exe=n` in WINEDLLOVERRIDES.
 */
export function installStandInTaskkill(prefix: string, host: string): void {
  const path = `${prefix}/drive_c/windows/system32/taskkill.exe`;
  rmSync(path, { force: true });
  copyFileSync(host, path);
}
