/** The Deno adapter: `Deno.*` stays in this file. */
import type { ChildProcess, Platform, Signal, SpawnOptions } from "./types.ts";
import { spawnError } from "./spawn-error.ts";
import { endsTreeOnWindows, killTreeOnWindows, signalProcessGroup, type SignalSender, type WindowsKiller } from "./tree-kill.ts";
import { ppidFromStat, watchParent } from "./parent-watch.ts";
import { loginSupport } from "./deno-login.ts";
import { listen } from "./deno-http.ts";
import { temporaryPath } from "./login-shared.ts";

const isWindows = Deno.build.os === "windows";
const isLinux = Deno.build.os === "linux";

const posixSender: SignalSender = {
  send: (target, signal) => Deno.kill(target, signal),
  isGone: (error) => error instanceof Deno.errors.NotFound,
};

/** Deno's child.kill throws a plain TypeError once the child has been reaped: told by its text. */
function killChildOnly(child: Deno.ChildProcess, signal: Signal): void {
  try {
    child.kill(signal);
  } catch (error) {
    if (!/already terminated/i.test((error as Error).message)) throw error;
  }
}

/** taskkill for the tree, the child alone when taskkill does not do it (see killTreeOnWindows). */
function windowsKiller(child: Deno.ChildProcess, signal: Signal, hasExited: () => boolean): WindowsKiller {
  return {
    run: async (command, args) => {
      const taskkill = new Deno.Command(command, { args, stdin: "null", stdout: "null", stderr: "null" }).spawn();
      return (await taskkill.status).code;
    },
    killChild() {
      if (!hasExited()) killChildOnly(child, signal);
    },
  };
}

function spawn(command: string, args: string[], options: SpawnOptions): ChildProcess {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command, {
      args,
      env: options.env,
      clearEnv: true,
      cwd: options.cwd,
      stdin: "piped",
      stdout: "piped",
      // An unread stderr pipe fills up (64 KiB on Linux) and the child's next write blocks until
      // it is killed: the caller must read it to the end, or cancel it (then writes fail instead).
      stderr: "piped",
      // POSIX: setsid, so the child leads a process group that kill() can end as a whole. Not on
      // Windows, where detaching takes the console away (grandchildren pop up windows of their own).
      detached: !isWindows,
    }).spawn();
  } catch (error) {
    throw spawnError(command, error, childPath(options.env), isDirectory);
  }
  // A child and reads of its pipes would keep us alive until they end, even after the child is
  // killed if a grandchild holds its pipes: those who need the child await `exited` instead.
  child.unref();
  let done = false;
  const exited = child.status.then((status) => {
    done = true;
    return { code: status.signal ? null : status.code, signal: status.signal ?? null };
  });
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    kill(signal: Signal = "SIGTERM") {
      if (!isWindows) signalProcessGroup(child.pid, signal, posixSender, done);
      else if (done) return;
      else if (endsTreeOnWindows(signal)) void killTreeOnWindows(child.pid, windowsKiller(child, signal, () => done));
      else killChildOnly(child, signal);
    },
  };
}

/** Our parent's pid from /proc (Linux), or undefined where there is none to read. */
function procPpid(): number | undefined {
  try {
    return ppidFromStat(Deno.readTextFileSync("/proc/self/stat"));
  } catch {
    return undefined;
  }
}

/**
 * Signal 0 tests for existence: NotFound (ESRCH) means gone, anything else counts as alive. On
 * Windows Deno.kill accepts only SIGTERM and SIGKILL, so there the answer is always "alive".
 */
function processExists(pid: number): boolean {
  try {
    Deno.kill(pid, 0);
    return true;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound);
  }
}

const parentAlive = watchParent(Deno.ppid, {
  currentPpid: isLinux ? procPpid : () => undefined,
  exists: processExists,
});

/** Temporary name per process and write, so that two workbenches never share one. */
let writes = 0;

async function writeTextFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${Deno.pid}-${++writes}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

/** As on Bun: a private file goes in whole with mode 0600, renamed or hard-linked into place. */
async function createFile(path: string, text: string, options: { overwrite: boolean; private?: boolean }): Promise<void> {
  const folder = path.replace(/[\\/][^\\/]*$/, "");
  if (folder !== "" && folder !== path) await Deno.mkdir(folder, { recursive: true });
  // createNew fails with Deno.errors.AlreadyExists, whose name is "AlreadyExists".
  if (!options.private) return await Deno.writeTextFile(path, text, { createNew: !options.overwrite });
  const temporary = temporaryPath(path);
  try {
    await Deno.writeTextFile(temporary, text, { mode: 0o600, createNew: true });
    if (!isWindows) await Deno.chmod(temporary, 0o600);
    await (options.overwrite ? Deno.rename : Deno.link)(temporary, path);
  } finally {
    await Deno.remove(temporary).catch(() => {});
  }
}

/** Run from source, the deno executable needs the script and the permissions serving takes. */
function selfCommand(): { command: string; args: string[] } {
  const command = Deno.execPath();
  if (!/(^|[\\/])deno(\.exe)?$/i.test(command)) return { command, args: [] };
  const script = decodeURIComponent(new URL(Deno.mainModule).pathname);
  return { command, args: ["run", "--allow-read", "--allow-env", "--allow-run", "--allow-net", "--allow-write", script] };
}

export const platform: Platform = {
  ...loginSupport,
  listen,
  runtime: "deno",
  windows: isWindows,
  args: Deno.args,
  // Windows names are case-insensitive but stored as "Path", "SystemRoot": upper-case them, as
  // Bun's process.env effectively does, so lookups of PATH or ${SYSTEMROOT} find them.
  env: isWindows
    ? Object.fromEntries(Object.entries(Deno.env.toObject()).map(([key, value]) => [key.toUpperCase(), value]))
    : Deno.env.toObject(),
  cwd: Deno.cwd(),
  stdin: Deno.stdin.readable,
  stdout: Deno.stdout.writable,
  writeStderr(text) {
    const bytes = new TextEncoder().encode(text);
    try {
      let written = 0;
      while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
    } catch {
      // Nobody reads our stderr any more (a killed client): a lost log line must not stop the
      // shutdown that follows it.
    }
  },
  // Deno rejects a missing file with Deno.errors.NotFound: name "NotFound", code "ENOENT".
  readTextFile: (path) => Deno.readTextFile(path),
  writeTextFile,
  async removeFile(path) {
    try {
      await Deno.remove(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  },
  makeDirectory: (path) => Deno.mkdir(path, { recursive: true }),
  createFile,
  // As on Bun: append, and mode 0600 for a file created by it.
  appendPrivateFile: (path, text) => Deno.writeTextFile(path, text, { append: true, mode: 0o600 }),
  stderrIsTerminal: () => Deno.stderr.isTerminal(),
  stdinIsTerminal: () => Deno.stdin.isTerminal(),
  selfCommand,
  spawn,
  onSignal(signal, handler) {
    try {
      Deno.addSignalListener(signal, handler);
    } catch {
      // A signal the OS lacks: Deno on Windows listens for SIGINT and SIGBREAK only.
    }
  },
  parentAlive,
  exit(code) {
    Deno.exit(code);
  },
  // Deno has no JIT policy to restore.
  startupDone() {},
  // Loaded when a Redis store is configured, not at start: node-redis stays out of a workbench without one.
  connectRedis: async (address, timings, events) =>
    (await import("./redis-link.ts")).redisLink(address, timings, events, (await import("./deno-redis.ts")).openRedis),
};

/** The PATH the child searches; Windows spells the name as it likes. */
function childPath(env: Record<string, string>): string | undefined {
  const key = Object.keys(env).find((name) => name === "PATH" || (isWindows && name.toUpperCase() === "PATH"));
  return key === undefined ? undefined : env[key];
}

/** Asked only when a spawn failed. */
function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
