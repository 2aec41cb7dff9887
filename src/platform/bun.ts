/** The Bun adapter: Bun and Node-compatible APIs stay in this file. */
import type { ChildProcess, ExitStatus, Platform, Signal, SpawnOptions } from "./types.ts";
import { spawnError } from "./spawn-error.ts";
import { endsTreeOnWindows, killTreeOnWindows, signalProcessGroup, type SignalSender, type WindowsKiller } from "./tree-kill.ts";
import { isCompiledMain } from "./compiled-main.ts";
import { watchParent } from "./parent-watch.ts";
import { loginSupport } from "./bun-login.ts";
import { listen } from "./bun-http.ts";
import { temporaryPath } from "./login-shared.ts";

const isWindows = process.platform === "win32";
const isLinux = process.platform === "linux";

interface FileSinkLike {
  write(chunk: Uint8Array): number | Promise<number>;
  flush(): number | Promise<number>;
  end(): number | Promise<number>;
}

/**
 * Bun gives a FileSink for pipes; the core wants a WritableStream. A chunk the pipe does not take at
 * once makes write() return a promise, which rejects when the reader is gone (EPIPE) while flush()
 * says 0: awaited, so that the failure is the write's, every time (issue 52: unawaited, it was an
 * unhandled rejection, and a client that closed our stdout left us running in 1 run of 3).
 */
function sinkToWritable(sink: FileSinkLike): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      const written = sink.write(chunk);
      if (written instanceof Promise) await written;
      await sink.flush();
    },
    async close() {
      await sink.end();
    },
    async abort() {
      await sink.end();
    },
  });
}

/**
 * node:fs and node:path are loaded when a file is written, not at start: loading them costs about
 * 1.5 MiB of resident memory, and serving only reads (Bun.file).
 */
const fsp = () => import("node:fs/promises");

/**
 * Bun's own writer for stderr: process.stderr is a Node stream whose machinery costs about 2 MiB of
 * resident memory. A write to a closed stderr (the client was killed) fails its flush, ignored.
 */
let stderrSink: ReturnType<typeof Bun.stderr.writer> | undefined;

const isNoSuchProcess = (error: unknown) => (error as { code?: unknown } | null)?.code === "ESRCH";

const posixSender: SignalSender = {
  send: (target, signal) => process.kill(target, signal),
  isGone: isNoSuchProcess,
};

/** taskkill for the tree, the child alone when taskkill does not do it (see killTreeOnWindows). */
function windowsKiller(proc: Bun.Subprocess, signal: Signal, hasExited: () => boolean): WindowsKiller {
  return {
    run: (command, args) => Bun.spawn([command, ...args], { stdio: ["ignore", "ignore", "ignore"] }).exited,
    killChild() {
      try {
        if (!hasExited()) proc.kill(signal);
      } catch {
        // It went meanwhile.
      }
    },
  };
}

function spawn(command: string, args: string[], options: SpawnOptions): ChildProcess {
  let proc;
  try {
    proc = Bun.spawn([command, ...args], {
      env: options.env,
      cwd: options.cwd,
      stdin: "pipe",
      stdout: "pipe",
      // Bun reads an unread stderr pipe into memory rather than let the child block on it; the
      // caller must still read it to the end (or cancel it) so that memory is not held.
      stderr: "pipe",
      // POSIX: setsid, so the child leads a process group that kill() can end as a whole. Not on
      // Windows, where detaching takes the console away (grandchildren pop up windows of their own).
      detached: !isWindows,
    });
  } catch (error) {
    throw spawnError(command, error, childPath(options.env), isDirectory);
  }
  // A child and reads of its pipes would keep us alive until they end, even after the child is
  // killed if a grandchild holds its pipes: those who need the child await `exited` instead.
  // Before the first read: Bun does not unref a read already pending.
  proc.unref();
  const hasExited = () => proc.exitCode !== null || proc.signalCode !== null;
  const exited: Promise<ExitStatus> = proc.exited.then(() => {
    const signal = proc.signalCode === null ? null : String(proc.signalCode);
    return { code: signal ? null : proc.exitCode, signal };
  });
  return {
    pid: proc.pid,
    stdin: sinkToWritable(proc.stdin as FileSinkLike),
    stdout: proc.stdout as ReadableStream<Uint8Array>,
    stderr: proc.stderr as ReadableStream<Uint8Array>,
    exited,
    kill(signal: Signal = "SIGTERM") {
      if (!isWindows) signalProcessGroup(proc.pid, signal, posixSender, hasExited());
      else if (hasExited()) return;
      else if (endsTreeOnWindows(signal)) void killTreeOnWindows(proc.pid, windowsKiller(proc, signal, hasExited));
      else proc.kill(signal);
    },
  };
}

/** Signal 0 tests for existence: ESRCH means gone; EPERM means it exists but is not ours. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !isNoSuchProcess(error);
  }
}

const parentAlive = watchParent(process.ppid, {
  // Bun's process.ppid asks the OS each time (getppid), as /proc/self/stat would: no node:fs needed.
  currentPpid: isLinux ? () => process.ppid : () => undefined,
  exists: processExists,
});

/** Bun sets code ENOENT for a missing file; Deno's name is "NotFound": give both. */
async function readTextFile(path: string): Promise<string> {
  try {
    return await Bun.file(path).text();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "ENOENT") (error as Error).name = "NotFound";
    throw error;
  }
}

/** Temporary name per process and write, so that two workbenches never share one. */
let writes = 0;

async function writeTextFile(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}-${++writes}.tmp`;
  try {
    const { writeFile, rename } = await fsp();
    await writeFile(temporary, text);
    await rename(temporary, path);
  } catch (error) {
    await (await fsp()).rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}

/**
 * Bun sets code EEXIST for a file that is there; Deno's name is "AlreadyExists": give both. A
 * private file is written whole under a temporary name with mode 0600, then renamed (overwrite)
 * or hard-linked (which fails if the file is there) into place: never readable by others, even
 * for a moment, and never half written.
 */
async function createFile(path: string, text: string, options: { overwrite: boolean; private?: boolean }): Promise<void> {
  const [{ chmod, link, mkdir, rename, rm, writeFile }, { dirname }] = await Promise.all([fsp(), import("node:path")]);
  await mkdir(dirname(path), { recursive: true });
  const temporary = options.private ? temporaryPath(path) : undefined;
  try {
    if (temporary === undefined) {
      await writeFile(path, text, { encoding: "utf8", flag: options.overwrite ? "w" : "wx" });
      return;
    }
    await writeFile(temporary, text, { encoding: "utf8", flag: "wx", mode: 0o600 });
    await chmod(temporary, 0o600);
    await (options.overwrite ? rename : link)(temporary, path);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "EEXIST") (error as Error).name = "AlreadyExists";
    throw error;
  } finally {
    if (temporary !== undefined) await rm(temporary, { force: true }).catch(() => {});
  }
}

/** The mode applies when the file is created; an existing file keeps its own. */
async function appendPrivateFile(path: string, text: string): Promise<void> {
  await (await fsp()).appendFile(path, text, { encoding: "utf8", mode: 0o600 });
}

/** A compiled executable is started as it is; a source run needs its script. */
function selfCommand(): { command: string; args: string[] } {
  return isCompiledMain(Bun.main) ? { command: process.execPath, args: [] } : { command: process.execPath, args: [Bun.main] };
}

export const platform: Platform = {
  ...loginSupport,
  listen,
  runtime: "bun",
  windows: isWindows,
  args: process.argv.slice(2),
  env: process.env as Record<string, string>,
  cwd: process.cwd(),
  // Getters: importing the adapter (as tests do) must not take over our stdio.
  get stdin() {
    return Bun.stdin.stream() as ReadableStream<Uint8Array>;
  },
  get stdout() {
    return sinkToWritable(Bun.stdout.writer() as FileSinkLike);
  },
  writeStderr(text) {
    // Best effort, as in the Deno adapter: a log line nobody can read must not stop a shutdown.
    try {
      stderrSink ??= Bun.stderr.writer();
      stderrSink.write(text);
      const flushed = stderrSink.flush();
      if (flushed instanceof Promise) flushed.catch(() => {});
    } catch {
      // The reader is gone.
    }
  },
  readTextFile,
  writeTextFile,
  async removeFile(path) {
    await (await fsp()).rm(path, { force: true });
  },
  async makeDirectory(path) {
    await (await fsp()).mkdir(path, { recursive: true });
  },
  createFile,
  appendPrivateFile,
  stderrIsTerminal: () => process.stderr.isTTY === true,
  stdinIsTerminal: () => isTerminal(0),
  selfCommand,
  spawn,
  // process.on never throws for a signal name: one the OS lacks is simply never emitted.
  onSignal(signal, handler) {
    process.on(signal, handler);
  },
  parentAlive,
  exit(code) {
    process.exit(code);
  },
  startupDone() {
    // The executable starts with the JIT held back (--compile-jit-policy); `bun src/main.ts` did not.
    Bun.unsafe.setJITPolicy(1);
  },
  collectGarbage: () => Bun.gc(true),
  sha256Hex: (text) => new Bun.CryptoHasher("sha256").update(text).digest("hex"),
  // Loaded when a Redis store is configured, not at start.
  connectRedis: async (address, timings, events) =>
    (await import("./redis-link.ts")).redisLink(address, timings, events, (await import("./bun-redis.ts")).openRedis),
};

/** The PATH the child searches; Windows spells the name as it likes. */
function childPath(env: Record<string, string>): string | undefined {
  const key = Object.keys(env).find((name) => name === "PATH" || (isWindows && name.toUpperCase() === "PATH"));
  return key === undefined ? undefined : env[key];
}

/**
 * Whether a file descriptor is a terminal. Not process.stdin (it would start a reader of fd 0
 * beside ours), and node:tty only where Bun's own binding is missing: serving asks at start-up,
 * and loading node:tty (Node's net and stream machinery) cost 2.7 MiB of resident memory and
 * about 2.5 ms before initialize was answered (issue 42).
 */
function isTerminal(fd: number): boolean {
  try {
    const binding = (process as unknown as { binding(name: string): { isTTY?(fd: number): boolean } }).binding("tty_wrap");
    if (typeof binding.isTTY === "function") return binding.isTTY(fd) === true;
  } catch {
    // An older or newer Bun without it: Node's module below.
  }
  return (require("node:tty") as typeof import("node:tty")).isatty(fd);
}

/** Asked only when a spawn failed: node:fs is not loaded at start (see fsp). */
function isDirectory(path: string): boolean {
  try {
    return (require("node:fs") as typeof import("node:fs")).statSync(path).isDirectory();
  } catch {
    return false;
  }
}
