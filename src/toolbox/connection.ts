/** One downstream server: its child process and the SDK Client that speaks to it. */
import { type CallToolResult, Client, ListToolsResultSchema, type Progress, type Tool } from "../sdk.ts";
import type { ServerConfig } from "../config/index.ts";
import type { ChildProcess, ExitStatus, Platform } from "../platform/types.ts";
import { RefusedMessage, StreamTransport } from "../transport/stream-transport.ts";
import type { FlowGate } from "../transport/flow-gate.ts";
import { MAX_JSON_DEPTH } from "../transport/json-depth.ts";
import { NAME, VERSION } from "../version.ts";
import { childEnvironment } from "./child-env.ts";
import { applyToolFilters } from "./filters.ts";
import { relayStderr, StderrTail } from "./stderr-relay.ts";
import { CallError, ToolCallLane } from "./call-lane.ts";
import { messageOf } from "../errors.ts";

/** How long a child gets after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 2_000;
/** How long a failure waits for the child's exit status, to name it instead of a broken pipe. */
const EXIT_REPORT_MS = 500;
/** Guards against a server whose nextCursor never ends. */
const MAX_TOOL_PAGES = 1_000;

export interface ConnectionTarget {
  toolbox: string;
  server: string;
  config: ServerConfig;
}

export type ConnectionHost = Pick<Platform, "spawn" | "env" | "writeStderr" | "windows"> & {
  /** Reading from servers waits while this is held: the client is not taking what we send. */
  readGate?: FlowGate;
};

export interface CallOptions {
  signal?: AbortSignal;
  /** Downstream progress, for the client that asked for it. */
  onProgress?: (progress: Progress) => void;
}

export class ServerConnection {
  readonly target: ConnectionTarget;
  tools: Tool[] = [];
  /** Names of every tool the server listed, before toolFilters (duplicates kept), for `check`. */
  listedNames: string[] = [];
  /** Set once the connection is lost; the reason says why. */
  lostReason?: string;
  readonly #child: ChildProcess;
  readonly #client: Client;
  readonly #host: ConnectionHost;
  #status?: ExitStatus;
  #closing?: Promise<void>;
  #lane?: ToolCallLane;
  /** What the server last wrote to stderr, for the message of a failed start. */
  readonly #stderrTail = new StderrTail();
  readonly #stderrDone: Promise<void>;

  private constructor(target: ConnectionTarget, child: ChildProcess, host: ConnectionHost) {
    this.target = target;
    this.#child = child;
    this.#host = host;
    this.#client = new Client({ name: NAME, version: VERSION }, { capabilities: {} });
    this.#stderrDone = relayStderr(child.stderr, `[${target.toolbox}/${target.server}]`, host.writeStderr, this.#stderrTail);
    child.exited.then((status) => this.#onExit(status));
  }

  /** Spawns the server; throws if it cannot start. */
  static spawn(target: ConnectionTarget, host: ConnectionHost): ServerConnection {
    const { command, args, env, cwd, inheritEnv } = target.config;
    const childEnv = inheritEnv ? { ...host.env, ...env } : childEnvironment(host.env, env, host.windows);
    const child = host.spawn(command, args, { env: childEnv, cwd });
    return new ServerConnection(target, child, host);
  }

  /** Initializes the session and lists its tools; rejects with a short reason on failure. */
  async connect(): Promise<void> {
    const { connectTimeoutMs, maxMessageBytes } = this.target.config;
    const transport = new StreamTransport(this.#child.stdout, this.#child.stdin, {
      maxMessageBytes,
      readGate: this.#host.readGate,
    });
    transport.onerror = (error) => {
      this.#log(error.message);
      if (error instanceof RefusedMessage && error.tooDeep) {
        this.#break(`server sent a message nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    };
    const lane = new ToolCallLane((message) => transport.send(message));
    transport.claim = (message) => lane.claim(message);
    this.#lane = lane;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`connection timeout after ${connectTimeoutMs} ms (connectTimeoutMs)`));
      }, connectTimeoutMs);
    });
    try {
      await Promise.race([this.#initialize(transport, connectTimeoutMs), timeout]);
    } catch (error) {
      const exit = timedOut ? undefined : await this.#exitWithin(EXIT_REPORT_MS);
      // A server that exited has usually said why on stderr: let the relay read its last lines.
      if (exit) await within(EXIT_REPORT_MS, this.#stderrDone);
      await this.close({ graceful: false });
      const reason = exit ? `${describeExit(exit)} during initialization` : messageOf(error);
      throw new Error(this.#stderrTail.explain(reason), { cause: error });
    } finally {
      clearTimeout(timer);
    }
    this.#client.onclose = () => {
      this.lostReason ??= "connection closed";
      lane.close();
    };
  }

  /**
   * The SDK's own request timeout (60 s by default) would cut a longer connectTimeoutMs short, so
   * each request gets the connect timeout. tools/list goes through request(), not listTools(),
   * which would compile a validator for every outputSchema: never used (calls take the lane),
   * and a schema the validator rejects would fail the whole server.
   */
  async #initialize(transport: StreamTransport, timeout: number): Promise<void> {
    await this.#client.connect(transport, { timeout });
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const result = await this.#client.request({ method: "tools/list", params }, ListToolsResultSchema, { timeout });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    this.listedNames = tools.map((tool) => tool.name);
    this.tools = applyToolFilters(tools, this.target.config.toolFilters);
  }

  /**
   * Calls a tool and returns its result as the server gave it. Progress from the server resets the
   * call timeout (callTimeoutMs); maxCallTimeMs caps the call whatever the progress.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    if (this.lostReason || !this.#lane) throw new Error(this.lostReason ?? "not connected");
    const { callTimeoutMs, maxCallTimeMs } = this.target.config;
    try {
      return await this.#lane.call({
        name,
        arguments: args,
        idleTimeoutMs: callTimeoutMs,
        maxTimeMs: maxCallTimeMs,
        signal: options.signal,
        onProgress: options.onProgress,
      });
    } catch (error) {
      throw new Error(await this.#explain(error), { cause: error });
    }
  }

  /** The words for a failed call: a crash names the exit, a timeout names its limit. */
  async #explain(error: unknown): Promise<string> {
    if (!(error instanceof CallError)) return messageOf(error);
    const { callTimeoutMs, maxCallTimeMs } = this.target.config;
    switch (error.failure.kind) {
      case "remote":
        return error.failure.message;
      case "idle-timeout":
        return `no answer within the call timeout of ${callTimeoutMs} ms (callTimeoutMs)`;
      case "max-time":
        return `call exceeded the maximum call time of ${maxCallTimeMs} ms (maxCallTimeMs)`;
      case "cancelled":
        return "cancelled by the client";
      case "closed": {
        const exit = this.#closing ? undefined : await this.#exitWithin(EXIT_REPORT_MS);
        return exit ? describeExit(exit) : this.lostReason ?? "connection closed";
      }
    }
  }

  /**
   * Closes stdin, then escalates to SIGTERM and SIGKILL (of the child's process group) if it does
   * not leave. A server that failed to start is not waited for after its stdin closes: it has no
   * work to finish, so SIGTERM comes at once.
   */
  close({ graceful = true } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(graceful);
    return this.#closing;
  }

  async #shutdown(graceful: boolean): Promise<void> {
    this.lostReason ??= "connection closed";
    this.#lane?.close();
    await this.#client.close().catch(() => {});
    const left = graceful && await this.#exitWithin(GRACE_MS);
    if (!left) {
      this.#signal("SIGTERM");
      await this.#exitWithin(GRACE_MS);
    }
    // SIGKILL for a server that ignored SIGTERM, and for anything it left behind in its group.
    this.#signal("SIGKILL");
    await this.#child.exited;
  }

  /**
   * The server sent what we cannot read (a message nested deeper than any parser here can walk):
   * what it says next cannot be trusted either. Pending calls fail now with the reason; the next
   * call starts the server again, as after a crash.
   */
  #break(reason: string): void {
    if (this.lostReason) return;
    this.lostReason = reason;
    void this.close({ graceful: false });
  }

  /** A crash: fail what is pending at once and take down what the server left behind. */
  #onExit(status: ExitStatus): void {
    this.#status = status;
    if (this.#closing) return;
    this.lostReason = describeExit(status);
    this.#log(this.lostReason);
    // A grandchild may still hold the server's stdout open; do not wait for its end.
    this.#lane?.close();
    void this.#client.close().catch(() => {});
    this.#signal("SIGKILL");
  }

  async #exitWithin(ms: number): Promise<ExitStatus | undefined> {
    if (this.#status) return this.#status;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
    const status = await Promise.race([this.#child.exited, expired]);
    clearTimeout(timer);
    return status;
  }

  /** A signal that cannot be sent (EPERM from a setuid helper in the group) is logged, not thrown. */
  #signal(signal: "SIGTERM" | "SIGKILL"): void {
    try {
      this.#child.kill(signal);
    } catch (error) {
      this.#log(`could not send ${signal}: ${messageOf(error)}`);
    }
  }

  #log(text: string): void {
    this.#host.writeStderr(`[${this.target.toolbox}/${this.target.server}] ${text}\n`);
  }
}

/** Waits for `promise`, but no longer than `ms`. */
async function within(ms: number, promise: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function describeExit(status: ExitStatus): string {
  return status.signal ? `server exited on signal ${status.signal}` : `server exited with code ${status.code}`;
}
