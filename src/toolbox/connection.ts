/** One downstream server: its child process and the SDK Client that speaks to it. */
import { type CallToolResult, CallToolResultSchema, Client, ErrorCode, McpError, type Progress, type Tool } from "../sdk.ts";
import type { ServerConfig } from "../config/index.ts";
import type { ChildProcess, ExitStatus, Platform } from "../platform/types.ts";
import { StreamTransport } from "../transport/stream-transport.ts";
import { NAME, VERSION } from "../version.ts";
import { childEnvironment } from "./child-env.ts";
import { applyToolFilters } from "./filters.ts";
import { relayStderr } from "./stderr-relay.ts";

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

export type ConnectionHost = Pick<Platform, "spawn" | "env" | "writeStderr" | "windows">;

export interface CallOptions {
  signal?: AbortSignal;
  /** Downstream progress, for the client that asked for it. */
  onProgress?: (progress: Progress) => void;
}

export class ServerConnection {
  readonly target: ConnectionTarget;
  tools: Tool[] = [];
  /** Set once the connection is lost; the reason says why. */
  lostReason?: string;
  readonly #child: ChildProcess;
  readonly #client: Client;
  readonly #host: ConnectionHost;
  #status?: ExitStatus;
  #closing?: Promise<void>;

  private constructor(target: ConnectionTarget, child: ChildProcess, host: ConnectionHost) {
    this.target = target;
    this.#child = child;
    this.#host = host;
    this.#client = new Client({ name: NAME, version: VERSION }, { capabilities: {} });
    void relayStderr(child.stderr, `[${target.toolbox}/${target.server}]`, host.writeStderr);
    child.exited.then((status) => this.#onExit(status));
  }

  get pid(): number {
    return this.#child.pid;
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
    const transport = new StreamTransport(this.#child.stdout, this.#child.stdin, { maxMessageBytes });
    transport.onerror = (error) => this.#log(error.message);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`connection timeout after ${connectTimeoutMs} ms (connectTimeoutMs)`));
      }, connectTimeoutMs);
    });
    try {
      await Promise.race([this.#initialize(transport), timeout]);
    } catch (error) {
      const exit = timedOut ? undefined : await this.#exitWithin(EXIT_REPORT_MS);
      await this.close({ graceful: false });
      if (exit) throw new Error(`${describeExit(exit)} during initialization`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    this.#client.onclose = () => {
      this.lostReason ??= "connection closed";
    };
  }

  async #initialize(transport: StreamTransport): Promise<void> {
    await this.#client.connect(transport);
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await this.#client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    this.tools = applyToolFilters(tools, this.target.config.toolFilters);
  }

  /**
   * Calls a tool and returns its result as the server gave it. Progress from the server resets the
   * call timeout (callTimeoutMs); maxCallTimeMs caps the call whatever the progress.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    if (this.lostReason) throw new Error(this.lostReason);
    const { callTimeoutMs, maxCallTimeMs } = this.target.config;
    try {
      return await this.#client.request(
        { method: "tools/call", params: { name, arguments: args } },
        CallToolResultSchema,
        {
          signal: options.signal,
          timeout: callTimeoutMs,
          maxTotalTimeout: maxCallTimeMs,
          resetTimeoutOnProgress: true,
          // The SDK asks for progress (and resets the timer on it) only when there is a listener.
          onprogress: options.onProgress ?? (() => {}),
        },
      ) as CallToolResult;
    } catch (error) {
      throw new Error(await this.#explain(error), { cause: error });
    }
  }

  /** The words for a failed call: a crash names the exit, a timeout names its limit. */
  async #explain(error: unknown): Promise<string> {
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && !this.#closing) {
      const exit = await this.#exitWithin(EXIT_REPORT_MS);
      if (exit) return describeExit(exit);
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      const { callTimeoutMs, maxCallTimeMs } = this.target.config;
      const data = error.data as { maxTotalTimeout?: number } | undefined;
      return data?.maxTotalTimeout !== undefined
        ? `call exceeded the maximum call time of ${maxCallTimeMs} ms (maxCallTimeMs)`
        : `no answer within the call timeout of ${callTimeoutMs} ms (callTimeoutMs)`;
    }
    return downstreamMessage(error);
  }

  /**
   * Closes stdin, then escalates to SIGTERM and SIGKILL (of the child's process group) if it does
   * not leave. A server that failed to start gets no grace: it has no work to finish.
   */
  close({ graceful = true } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(graceful);
    return this.#closing;
  }

  async #shutdown(graceful: boolean): Promise<void> {
    this.lostReason ??= "connection closed";
    await this.#client.close().catch(() => {});
    const left = graceful && await this.#exitWithin(GRACE_MS);
    if (!left) {
      this.#child.kill("SIGTERM");
      await this.#exitWithin(GRACE_MS);
    }
    // SIGKILL for a server that ignored SIGTERM, and for anything it left behind in its group.
    this.#child.kill("SIGKILL");
    await this.#child.exited;
  }

  /** A crash: fail what is pending at once and take down what the server left behind. */
  #onExit(status: ExitStatus): void {
    this.#status = status;
    if (this.#closing) return;
    this.lostReason = describeExit(status);
    this.#log(this.lostReason);
    // A grandchild may still hold the server's stdout open; do not wait for its end.
    void this.#client.close().catch(() => {});
    this.#child.kill("SIGKILL");
  }

  async #exitWithin(ms: number): Promise<ExitStatus | undefined> {
    if (this.#status) return this.#status;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
    const status = await Promise.race([this.#child.exited, expired]);
    clearTimeout(timer);
    return status;
  }

  #log(text: string): void {
    this.#host.writeStderr(`[${this.target.toolbox}/${this.target.server}] ${text}\n`);
  }
}

/**
 * The SDK prefixes "MCP error <code>: " to the message of every JSON-RPC error it receives; the
 * user wants the downstream's own words (which, from an SDK server, carry that prefix already).
 */
function downstreamMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const prefix = error instanceof McpError ? `MCP error ${error.code}: ` : "";
  return prefix && error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

function describeExit(status: ExitStatus): string {
  return status.signal ? `server exited on signal ${status.signal}` : `server exited with code ${status.code}`;
}
