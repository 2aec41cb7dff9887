/**
 * What the tests of the Windows executable under Wine share (tests/windows/*.wine.ts; run them with
 * `npm run test:windows`, which builds the executables and prepares Wine first, see
 * scripts/test-windows.ts): where things are, Windows paths, starting the executable under Wine
 * (through the relay when it reads stdin), and the processes a test left behind.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { Client, StdioClientTransport } from "../helpers/sdk.ts";

const dir = process.env.WORKBENCH_WINE_DIR;
if (!dir) throw new Error("WORKBENCH_WINE_DIR is not set: run these tests with 'npm run test:windows'");

/** The runner's build folder: the executables it built and the release it packed. */
export const suite = {
  workbench: `${dir}/bin/mcp-workbench.exe`,
  host: `${dir}/bin/fixture-host.exe`,
  release: `${dir}/release`,
  /** The Wine launcher the runner found (Debian's `wine`). */
  wine: process.env.WORKBENCH_WINE ?? "wine",
};

/** A Linux path as Windows programs under Wine see it: drive Z: is the root, with backslashes. */
export function winPath(path: string): string {
  return `Z:${path.replaceAll("/", "\\")}`;
}

/** One test's folder (its name has a space) and the tag that names its processes. */
export interface Place {
  dir: string;
  tag: string;
  /** The folder's path as Windows sees it, with `rest` joined by a backslash. */
  win(rest?: string): string;
}

/** A fresh folder in the run's temp dir (the runner removes it at the end), else in the system's. */
export function place(): Place {
  const made = mkdtempSync(`${process.env.WORKBENCH_WINE_TEMP ?? tmpdir()}/wine test wt`);
  const tag = made.slice(made.lastIndexOf(" ") + 1);
  return { dir: made, tag, win: (rest) => winPath(rest ? `${made}/${rest}` : made) };
}

/** A fixture server of the host executable, tagged so that its processes can be found. */
export function fixtureServer(at: Place, role: "server" | "catalog" | "stubborn", env: Record<string, string> = {}) {
  return { command: winPath(suite.host), args: [role, "--tag", at.tag], env };
}

export function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

/** The environment of a Wine process: the runner's (WINEPREFIX, WINEDEBUG...) and a listing cache of the test's own. */
export function wineEnv(at: Place, extra: Record<string, string> = {}): Record<string, string> {
  const env = { ...process.env, WORKBENCH_CACHE_DIR: at.win("cache"), ...extra } as Record<string, string>;
  delete env.WORKBENCH_CONFIG;
  return env;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/** A Windows program started under Wine: what it wrote so far, and its end. */
export interface Running {
  /** Pid of the Wine process, which is the Windows program itself: signals to it reach the program. */
  pid: number;
  stderr(): string;
  done: Promise<Ran>;
}

/**
 * Starts a Windows program under Wine with stdin from /dev/null (which Bun under Wine can read,
 * unlike a pipe); it is killed after `timeoutMs`, and `timedOut` says so. `done` resolves at most
 * 2 s after the program exits, even if a process it left holds its output open.
 */
export function startWine(args: string[], options: { env: Record<string, string>; cwd?: string; timeoutMs?: number }): Running {
  const begun = performance.now();
  const child = spawn(suite.wine, args, { stdio: ["ignore", "pipe", "pipe"], env: options.env, cwd: options.cwd });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, options.timeoutMs ?? 60_000);
  const closed = new Promise((resolve) => child.on("close", resolve));
  const done = new Promise<Ran>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", async (code) => {
      clearTimeout(timer);
      const ms = performance.now() - begun;
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      resolve({ code, stdout, stderr, ms, timedOut });
    });
  });
  return { pid: child.pid ?? 0, stderr: () => stderr, done };
}

/** Runs a Windows program under Wine to its end (see startWine). */
export function runWine(args: string[], options: { env: Record<string, string>; cwd?: string; timeoutMs?: number }): Promise<Ran> {
  return startWine(args, options).done;
}

/** Waits until `ready` holds, or `ms` have passed (then throws, with `what`). */
export async function until(ready: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A run's outcome in words, for an assertion's message. */
export function described(ran: Ran): string {
  const how = ran.timedOut ? "was killed after timing out" : `exited with ${ran.code}`;
  return `It ${how} after ${Math.round(ran.ms)} ms; stdout: ${ran.stdout.slice(-1_000)}; stderr: ${ran.stderr.slice(-2_000)}`;
}

export interface RelayedSession {
  client: Client;
  transport: StdioClientTransport;
  /** Pid of the relay's Wine process. */
  pid: number;
  stderr(): string;
}

/**
 * The official SDK client over stdio to a Windows program (the workbench unless `command` says
 * otherwise), through the relay: the relay's stdin is the client's pipe, the program's is a pipe
 * made inside Wine.
 */
export async function connectThroughRelay(
  args: string[],
  options: { env: Record<string, string>; client?: Client; command?: string },
): Promise<RelayedSession> {
  const command = options.command ?? winPath(suite.workbench);
  const transport = new StdioClientTransport({
    command: suite.wine,
    args: [winPath(suite.host), "relay", command, ...args],
    env: options.env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = options.client ?? new Client({ name: "wine-test", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}; stderr: ${stderr}`);
  }
  return { client, transport, pid: transport.pid!, stderr: () => stderr };
}

/**
 * Closes the program's stdin as a client that goes away does, and leaves it at that: the SDK's
 * close() would kill the relay two seconds later, and with it (by its job object) the workbench.
 */
export function endInput(session: RelayedSession): void {
  (session.transport as unknown as { _process?: { stdin?: { end(): void } } })._process?.stdin?.end();
}

/** Resolves once the process is gone (or a zombie), or after `ms`; true if it went. */
export async function waitExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Running processes (not zombies) whose command line names the tag. */
export function tagged(tag: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const command = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      if (command.includes(tag)) found.push({ pid: Number(name), command });
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** Waits until no process names the tag, or `ms` have passed; returns those still there. */
export async function waitUntagged(tag: string, ms: number): Promise<{ pid: number; command: string }[]> {
  const deadline = Date.now() + ms;
  let left = tagged(tag);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = tagged(tag);
  }
  return left;
}

/** Ends what the test started and left (each by pid), then removes its folder. */
export function cleanUp(at: Place): void {
  for (const { pid } of tagged(at.tag)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  rmSync(at.dir, { recursive: true, force: true });
}

/** The text of a tool result's first block. */
export function textOf(result: unknown): string {
  const block = (result as { content?: { type: string; text?: string }[] }).content?.[0];
  if (block?.type !== "text" || block.text === undefined) throw new Error(`Expected text content, got ${JSON.stringify(result)}`);
  return block.text;
}
