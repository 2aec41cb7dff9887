/**
 * Commands found as the user's shell finds them. A client started from a desktop (Claude Desktop
 * on macOS above all) gives us a bare PATH such as `/usr/bin:/bin:/usr/sbin:/sbin`, so an `npx`
 * from Homebrew, nvm or Volta is not found although it works in the user's terminal. A command not
 * found on the child's PATH is tried again on the login shell's PATH (asked once per process),
 * then with the usual install folders added; the child runs with the PATH that found it, since
 * what it starts in turn (`npx` starts `node`) is looked up there too.
 */
import type { Platform } from "../../platform/types.ts";

/** A shell that hangs in its profile must not hold a connect up for longer than this. */
export const SHELL_TIMEOUT_MS = 3_000;
/** Around the printed PATH: what a profile prints (a motd, an echo) is not taken for it. */
const MARKER = "__MCP_WORKBENCH_PATH__";
/** `printenv` rather than `$PATH`: fish keeps PATH as a list but exports it joined by colons. */
const PATH_SCRIPT = `echo ${MARKER}; printenv PATH; echo ${MARKER}`;
/** Bounds what a talkative profile can make us hold, in characters. */
const MAX_SHELL_OUTPUT = 1 << 20;

const USUAL_FOLDERS = ["/opt/homebrew/bin", "/usr/local/bin"];
const USUAL_HOME_FOLDERS = [".local/bin", ".volta/bin", ".bun/bin", ".deno/bin"];

/** A PATH to try, and words for where it came from. */
export interface WiderPath {
  path: string;
  source: string;
}

export interface CommandSearchOptions {
  /** Our environment: HOME for the usual folders. */
  env: Record<string, string>;
  windows: boolean;
  /** The login shell's PATH, or undefined when there is none to be had; called at most once. */
  loginPath: () => Promise<string | undefined>;
  /** Writes one line to stderr. */
  notify: (line: string) => void;
}

export class CommandSearch {
  readonly #options: CommandSearchOptions;
  #loginPath?: Promise<string | undefined>;

  constructor(options: CommandSearchOptions) {
    this.#options = options;
  }

  /**
   * Calls `launch` with the child's environment. A bare command that is not found there is tried
   * again on wider PATHs, unless the server set its own PATH (its choice stands) or we run on
   * Windows (a desktop app gets the user's PATH there; the runtime resolves `npx` to `npx.cmd`
   * through PATHEXT as before). Not found anywhere, the error of the widest try is thrown.
   */
  start<T>(
    command: string,
    env: Record<string, string>,
    configured: Record<string, string>,
    label: string,
    launch: (env: Record<string, string>) => T,
  ): T | Promise<T> {
    try {
      return launch(env);
    } catch (error) {
      const mayWiden = isNotFound(error) && !this.#options.windows && !/[\\/]/.test(command) && !("PATH" in configured);
      if (!mayWiden) throw error;
      return this.#launchWider(command, env, label, launch, error);
    }
  }

  async #launchWider<T>(
    command: string,
    env: Record<string, string>,
    label: string,
    launch: (env: Record<string, string>) => T,
    notFound: unknown,
  ): Promise<T> {
    this.#loginPath ??= this.#options.loginPath().catch(() => undefined);
    const home = this.#options.env.HOME;
    let last = notFound;
    for (const wider of widerPaths(env.PATH, await this.#loginPath, home)) {
      try {
        const launched = launch({ ...env, PATH: wider.path });
        this.#options.notify(
          `${label} '${command}' is not on PATH '${env.PATH ?? ""}': found on ${wider.source} '${wider.path}', which it runs with`,
        );
        return launched;
      } catch (error) {
        if (!isNotFound(error)) throw error;
        last = error;
      }
    }
    throw last;
  }
}

/**
 * The PATHs to try after ours, each wider than the last: the login shell's PATH first (its order
 * is the terminal's), with ours after it; then the usual install folders added. A PATH that adds
 * nothing to the previous one is not tried.
 */
export function widerPaths(ours: string | undefined, login: string | undefined, home: string | undefined): WiderPath[] {
  const tries: WiderPath[] = [];
  let previous = joinPath(splitPath(ours));
  if (login !== undefined) {
    const path = joinPath([...splitPath(login), ...splitPath(ours)]);
    if (path !== previous) tries.push({ path, source: "the login shell's PATH" });
    previous = path;
  }
  const usual = [...USUAL_FOLDERS, ...(home ? USUAL_HOME_FOLDERS.map((folder) => `${home.replace(/\/+$/, "")}/${folder}`) : [])];
  const path = joinPath([...splitPath(previous), ...usual]);
  if (path !== previous) tries.push({ path, source: "the PATH with the usual install folders added" });
  return tries;
}

/** Empty entries (which mean the current folder) are dropped. */
function splitPath(path: string | undefined): string[] {
  return (path ?? "").split(":").filter((entry) => entry !== "");
}

function joinPath(folders: string[]): string {
  return [...new Set(folders)].join(":");
}

function isNotFound(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === "NotFound";
}

/** The PATH between the markers of what the shell printed; undefined without both. */
export function pathFromShellOutput(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const start = lines.indexOf(MARKER);
  const end = lines.indexOf(MARKER, start + 1);
  if (start === -1 || end === -1) return undefined;
  const path = lines.slice(start + 1, end).join("").trim();
  return path === "" ? undefined : path;
}

/**
 * Asks `$SHELL -lc` for its PATH, with our environment (it is the user's own shell, which sees
 * all of it in a terminal too). A shell that fails, prints no PATH or takes longer than
 * `timeoutMs` gives undefined. Then the shell's process group is killed: whatever it still runs.
 */
export async function askLoginShell(
  spawn: Platform["spawn"],
  env: Record<string, string>,
  timeoutMs = SHELL_TIMEOUT_MS,
): Promise<string | undefined> {
  const shell = env.SHELL;
  if (!shell) return undefined;
  let child;
  try {
    child = spawn(shell, ["-lc", PATH_SCRIPT], { env });
  } catch {
    return undefined;
  }
  void child.stderr.cancel().catch(() => {});
  void child.stdin.close().catch(() => {});
  const reader = child.stdout.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, timeoutMs, undefined)));
  const path = await Promise.race([readPath(reader), expired]);
  clearTimeout(timer);
  // Its answer given (or not in time), nothing the shell left running in its group is needed.
  child.kill("SIGKILL");
  void reader.cancel().catch(() => {});
  return path;
}

/**
 * Reads until the PATH is there between its markers: not to the end, which a process the profile
 * started in the background (holding our pipe) could put off. Gives up at MAX_SHELL_OUTPUT characters,
 * the end, or a failed read.
 */
async function readPath(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string | undefined> {
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < MAX_SHELL_OUTPUT) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const path = pathFromShellOutput(text);
      if (path !== undefined) return path;
    }
  } catch {
    // The pipe broke: nothing more will come.
  }
  return undefined;
}

/** The search a workbench process uses for its servers: one login shell, asked when first needed. */
export function commandSearchFor(platform: Pick<Platform, "spawn" | "env" | "windows">, notify: (line: string) => void): CommandSearch {
  return new CommandSearch({
    env: platform.env,
    windows: platform.windows,
    loginPath: () => askLoginShell(platform.spawn, platform.env),
    notify,
  });
}
