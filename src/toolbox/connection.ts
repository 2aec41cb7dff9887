/** One downstream server: its child process and the SDK Client that speaks to it. */
import { Client } from "../sdk.ts";
import { type CallToolResult, CallToolResultSchema, McpError, type Tool } from "../sdk.ts";
import type { ServerConfig } from "../config/index.ts";
import type { ChildProcess, ExitStatus, Platform } from "../platform/types.ts";
import { StreamTransport } from "../transport/stream-transport.ts";
import { NAME, VERSION } from "../version.ts";
import { childEnvironment } from "./child-env.ts";
import { applyToolFilters } from "./filters.ts";

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How long a child gets after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 2_000;
/** How long a failed start-up waits for the child's exit status, to report it. */
const EXIT_REPORT_MS = 500;
/** Guards against a server whose nextCursor never ends. */
const MAX_TOOL_PAGES = 1_000;

export interface ConnectionTarget {
  toolbox: string;
  server: string;
  config: ServerConfig;
}

export type ConnectionHost = Pick<Platform, "spawn" | "env" | "writeStderr">;

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
    child.exited.then((status) => {
      this.#status = status;
      // The exit status says more than the "connection closed" that usually arrives first.
      if (!this.#closing) this.lostReason = describeExit(status);
    });
  }

  get pid(): number {
    return this.#child.pid;
  }

  /** Spawns the server; throws (with the child already ended) if it cannot start. */
  static spawn(target: ConnectionTarget, host: ConnectionHost): ServerConnection {
    const { command, args, env, cwd } = target.config;
    const child = host.spawn(command, args, { env: childEnvironment(host.env, env), cwd });
    return new ServerConnection(target, child, host);
  }

  /** Initializes the session and lists its tools; rejects with a short reason on failure. */
  async connect(): Promise<void> {
    const timeoutMs = this.target.config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const transport = new StreamTransport(this.#child.stdout, this.#child.stdin);
    transport.onerror = (error) => this.#log(error.message);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`connection timeout after ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      await Promise.race([this.#initialize(transport), timeout]);
    } catch (error) {
      // A server that dies at start-up often shows first as a broken pipe: name its exit instead.
      const exited = timedOut ? false : await this.#exitedWithin(EXIT_REPORT_MS);
      await this.close({ graceful: false });
      if (exited && this.#status) throw new Error(`${describeExit(this.#status)} during initialization`);
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

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    if (this.lostReason) throw new Error(this.lostReason);
    try {
      return await this.#client.request(
        { method: "tools/call", params: { name, arguments: args } },
        CallToolResultSchema,
        { signal },
      ) as CallToolResult;
    } catch (error) {
      throw new Error(downstreamMessage(error), { cause: error });
    }
  }

  /**
   * Closes stdin, then escalates to SIGTERM and SIGKILL if the child does not leave. A server that
   * failed to start gets no time to finish its work: it has none.
   */
  close({ graceful = true } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(graceful);
    return this.#closing;
  }

  async #shutdown(graceful: boolean): Promise<void> {
    this.lostReason ??= "connection closed";
    await this.#client.close().catch(() => {});
    if (graceful && await this.#exitedWithin(GRACE_MS)) return;
    this.#child.kill("SIGTERM");
    if (await this.#exitedWithin(GRACE_MS)) return;
    this.#child.kill("SIGKILL");
    await this.#child.exited;
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    if (this.#status) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const done = await Promise.race([this.#child.exited.then(() => true), expired]);
    clearTimeout(timer);
    return done;
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
