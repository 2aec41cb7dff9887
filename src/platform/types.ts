/** The small surface the runtime-neutral core needs from Bun or Deno. */

export type Signal = "SIGINT" | "SIGTERM" | "SIGHUP" | "SIGKILL";

export interface ExitStatus {
  /** Exit code, or null when the process was ended by a signal. */
  code: number | null;
  /** Name of the signal that ended the process, or null. */
  signal: string | null;
}

export interface SpawnOptions {
  /** The child's whole environment: nothing of ours is added. */
  env: Record<string, string>;
  cwd?: string;
}

export interface ChildProcess {
  pid: number;
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  /**
   * Piped so that the core can prefix each line with the server's name before it reaches ours.
   * Whoever spawns must read it to the end or cancel it: a full pipe blocks the child's writes.
   */
  stderr: ReadableStream<Uint8Array>;
  exited: Promise<ExitStatus>;
  /**
   * Signals the child's whole process group (it is spawned as a group leader), so grandchildren
   * such as the `node` an `npx` starts go too. On Windows, SIGTERM and SIGKILL end the process tree
   * (`taskkill /pid N /t /f`). After the child has exited, POSIX still signals what is left of its
   * group (grandchildren it left behind); on Windows an exited child is left alone.
   */
  kill(signal?: Signal): void;
}

/** A web handler listening on loopback, for an OAuth redirect. */
export interface LoopbackServer {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/** A web handler listening on a host and port, for serving MCP over HTTP. */
export interface HttpListener {
  /** The address it listens on, as given, and the port it got (the one asked for, or a free one for 0). */
  hostname: string;
  port: number;
  /** Stops listening; requests still being answered are cut off. */
  close(): Promise<void>;
}

/** What logging in to remote servers needs: a loopback listener, a browser and private files. */
export interface LoginSupport {
  /** The operating system: where per-user files (logins, caches, other programs' configurations) live. */
  os: "windows" | "darwin" | "linux" | "other";
  /**
   * Serves `handler` on 127.0.0.1 until closed: on `port` when it is given and free (a login
   * reuses the redirect URL its client was registered with), else on any free port.
   */
  serve(handler: (request: Request) => Response | Promise<Response>, port?: number): Promise<LoopbackServer>;
  /** Opens the URL in the user's browser (open, xdg-open, start); never throws. */
  openBrowser(url: string): void;
  /**
   * Writes a file only the user can read (mode 0600, its folder 0700, created as needed),
   * atomically: a temporary file in the same folder, then a rename over the old one.
   */
  writePrivateFile(path: string, text: string): Promise<void>;
}

/** Where a Redis (or Valkey) server is, as the store's URL says it (src/store/store-url.ts parses it). */
export interface RedisAddress {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  /** The database number (SELECT); 0 by default. */
  database: number;
}

export interface RedisTimings {
  /** How long opening a connection (and its handshake) may take. */
  connectTimeoutMs: number;
  /** How long a command may wait for its reply; past it the connection counts as lost. */
  commandTimeoutMs: number;
  /** The longest wait between two attempts to reconnect (the wait doubles from 50 ms up to it). */
  reconnectCapMs: number;
}

/** A reply as RESP2 gives it, whatever the client speaks: a map comes as [field, value, ...], a boolean as 1 or 0. */
export type RedisReply = string | number | null | RedisReply[];

/** What a link tells its owner: each outage once (lost, then restored), and the messages of its channels. */
export interface RedisLinkEvents {
  lost(error: Error): void;
  restored(): void;
  message(channel: string, message: string): void;
}

/**
 * A connection to one Redis server that outlives the server's outages: commands go on one
 * connection, subscriptions on a second one (opened at the first subscribe). While the server
 * cannot be reached every call rejects at once, and the link reconnects in the background, the
 * wait doubling up to a cap, for as long as it is open; then it subscribes its channels again.
 * A rejection is an Error whose name is "RedisReply" when the server answered with an error (the
 * connection is fine), else "RedisUnreachable" (not connected, lost, no answer in time, closed).
 */
export interface RedisLink {
  /** One command and its arguments, e.g. ["SET", key, value, "PX", "1000"]. */
  send(command: string[]): Promise<RedisReply>;
  /** From now on, messages published on `channel` reach `events.message`. */
  subscribe(channel: string): Promise<void>;
  /** Stops the messages of `channel`; fine while the server is down (it is not subscribed again). */
  unsubscribe(channel: string): Promise<void>;
  /** Ends both connections and the reconnection; later calls reject. */
  close(): Promise<void>;
}

export interface Platform extends LoginSupport {
  runtime: "bun" | "deno";
  /** Windows has its own set of essential environment variables and no process groups. */
  windows: boolean;
  /** Command-line arguments after the program (and script) name. */
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  /** Writes text to stderr at once; logs never go to stdout. Never throws: a lost log line is fine. */
  writeStderr(text: string): void;
  /** Reads UTF-8; a missing file rejects with an Error whose name is "NotFound". */
  readTextFile(path: string): Promise<string>;
  /** Writes UTF-8 to a temporary file and renames it over `path`: readers never see half a file. */
  writeTextFile(path: string, text: string): Promise<void>;
  /** Removes a file; one that is not there is fine. */
  removeFile(path: string): Promise<void>;
  /** Creates a directory and any missing parents; one that exists already is fine. */
  makeDirectory(path: string): Promise<void>;
  /**
   * Writes UTF-8, creating missing folders. An existing file is left as it is and rejects with an
   * Error whose name is "AlreadyExists", unless `overwrite`. A `private` file gets mode 0600 and
   * appears whole, atomically.
   */
  createFile(path: string, text: string, options: { overwrite: boolean; private?: boolean }): Promise<void>;
  /**
   * Appends UTF-8 to the end of a file (O_APPEND: writes of other processes are not overwritten),
   * creating it with mode 0600 when missing; its folder must exist. For logs only the user reads.
   */
  appendPrivateFile(path: string, text: string): Promise<void>;
  /** True when stderr is a terminal: someone is watching, so live progress may go there. */
  stderrIsTerminal(): boolean;
  /** True when stdin is a terminal: a person types there, not an MCP client (serving says so; approve and `call` ask). */
  stdinIsTerminal(): boolean;
  /** How to start this program again from anywhere: the executable's absolute path, plus the script when run from source. */
  selfCommand(): { command: string; args: string[] };
  /**
   * Starts a child with piped stdin, stdout and stderr, as the leader of a new process group (POSIX).
   * The child does not keep our process alive: await `exited` while it is needed. Throws if it
   * cannot start: an Error whose name is "NotFound" when the command is not found (a bare name is
   * looked up on the PATH in `options.env`).
   */
  spawn(command: string, args: string[], options: SpawnOptions): ChildProcess;
  /**
   * Serves `handler` on `hostname` and `port` (0: any free port) until closed. Streamed responses
   * are never cut for being idle: a server-sent event stream may stay quiet for minutes.
   */
  listen(handler: (request: Request) => Promise<Response>, hostname: string, port: number): Promise<HttpListener>;
  /** Registers a handler; a signal the OS does not have (SIGHUP on Windows) is ignored. */
  onSignal(signal: Exclude<Signal, "SIGKILL">, handler: () => void): void;
  /** False once the process that started us has gone (we were re-parented). */
  parentAlive(): boolean;
  exit(code: number): never;
  /**
   * Start-up is over (the client has initialized): run-once start-up code ran in the interpreter,
   * the code that serves may now be compiled as usual. See scripts/release/compile.ts.
   */
  startupDone(): void;
  /**
   * A full collection now, where the runtime offers one (Bun.gc; Deno: none without a V8 flag):
   * large strings let go of are otherwise given back late (issue 54: 300 paged 1 MiB results,
   * 268 of them pushed out of the session's store, peaked at 287 to 401 MiB, 200 collecting).
   */
  collectGarbage?(): void;
  /**
   * The runtime's own SHA-256 of the text's UTF-8 bytes, as 64 lowercase hex digits, at once; none
   * where the runtime has no synchronous one (src/cache/sha256.ts hashes in plain script then).
   */
  sha256Hex?(text: string): string;
  /**
   * Connects to a Redis or Valkey server (Bun's own client under Bun, node-redis under Deno, loaded
   * only here). Rejects as `send` does when the first connection cannot be made: a wrong address or
   * password is said at start, not hidden behind reconnection.
   */
  connectRedis(address: RedisAddress, timings: RedisTimings, events: RedisLinkEvents): Promise<RedisLink>;
}
