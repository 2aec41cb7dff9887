/**
 * The bench client: raw newline-delimited JSON-RPC over a child's stdio, no SDK, so that its cost
 * is small and the same for every system under test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import process from "node:process";

export interface Command {
  command: string;
  args: string[];
  /** Added to the bench's own environment. */
  env?: Record<string, string>;
  cwd?: string;
}

type Id = number;
interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export const PROTOCOL_VERSION = "2025-06-18";
const NEWLINE = 0x0a;
/** Enough of a peer's stderr to explain a failure, without holding its logs. */
const STDERR_TAIL_CHARS = 4_000;
const DEFAULT_TIMEOUT_MS = 30_000;

export class RpcClient {
  /** Every process started and not yet gone, so that a run that must stop can end them. */
  static readonly #live = new Set<RpcClient>();
  readonly pid: number;
  /** The peer's answer to initialize, once the handshake is done. */
  initializeResult?: { instructions?: string; [key: string]: unknown };
  /** Sees every message from the peer, in the order it arrived (tests check ordering with it). */
  onMessage?: (message: Record<string, unknown>) => void;
  readonly #child: ChildProcess;
  readonly #pending = new Map<Id, Pending>();
  readonly #exited: Promise<void>;
  #nextId = 1;
  #chunks: Buffer[] = [];
  #stderrTail = "";
  #exitReason?: string;

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.pid = child.pid!;
    child.stdout!.on("data", (chunk: Buffer) => this.#onData(chunk));
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    RpcClient.#live.add(this);
    this.#exited = new Promise((resolve) => {
      child.on("exit", (code, signal) => {
        RpcClient.#live.delete(this);
        this.#exitReason = `exited (${signal ?? code})`;
        this.#failAll(new Error(`${this.#exitReason}; stderr: ${this.#stderrTail}`));
        resolve();
      });
    });
  }

  /** Starts the process; the clock of a start-up figure starts here. */
  static start(cmd: Command): RpcClient {
    const child = spawn(cmd.command, cmd.args, {
      env: { ...process.env, ...cmd.env },
      cwd: cmd.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    // A failed spawn also emits "error" later; the exception below already reports it.
    child.on("error", () => {});
    if (child.pid === undefined) throw new Error(`could not start ${cmd.command}`);
    return new RpcClient(child);
  }

  /** SIGTERM to every process the bench started that is still running (a workbench then ends its servers). */
  static terminateAll(): void {
    for (const client of RpcClient.#live) client.#signal("SIGTERM");
  }

  get stderr(): string {
    return this.#stderrTail;
  }

  /** Sends a request and resolves with its result; a JSON-RPC error or a timeout rejects. */
  request(method: string, params: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<unknown> {
    if (this.#exitReason) return Promise.reject(new Error(`${this.#exitReason}; stderr: ${this.#stderrTail}`));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method} timed out after ${timeoutMs} ms; stderr: ${this.#stderrTail}`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.#write({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.#write({ jsonrpc: "2.0", method, ...(params !== undefined && { params }) });
  }

  /** The MCP handshake: initialize, then the initialized notification. Returns initialize's result. */
  async initialize(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Record<string, unknown>> {
    const result = await this.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "mcp-workbench-bench", version: "1.0.0" },
    }, timeoutMs);
    this.notify("notifications/initialized");
    this.initializeResult = result as Record<string, unknown>;
    return this.initializeResult;
  }

  /** The 2026-07-28 opening: server/discover with the per-request `_meta` envelope. Returns its result. */
  async discover(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Record<string, unknown>> {
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "mcp-workbench-bench", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    return await this.request("server/discover", { _meta }, timeoutMs) as Record<string, unknown>;
  }

  /**
   * Ends the session as a client does (closes stdin), then escalates by pid: SIGTERM, SIGKILL.
   * Bounded: resolves within about 2 * graceMs.
   */
  async close(graceMs = 3_000): Promise<void> {
    this.#child.stdin!.end();
    if (await this.#exitedWithin(graceMs)) return;
    this.#signal("SIGTERM");
    if (await this.#exitedWithin(graceMs)) return;
    this.#signal("SIGKILL");
    await this.#exitedWithin(graceMs);
  }

  #signal(signal: "SIGTERM" | "SIGKILL"): void {
    try {
      process.kill(this.pid, signal);
    } catch {
      // Already gone.
    }
  }

  async #exitedWithin(ms: number): Promise<boolean> {
    if (this.#exitReason) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const done = await Promise.race([this.#exited.then(() => true), expired]);
    clearTimeout(timer);
    return done;
  }

  #write(message: unknown): void {
    this.#child.stdin!.write(JSON.stringify(message) + "\n");
  }

  /** Newline framing: the chunks of a long line are joined once, when it ends. */
  #onData(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#chunks.push(chunk.subarray(start, end));
      const line = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
      this.#chunks = [];
      start = end + 1;
      this.#onLine(line);
    }
    if (start < chunk.length) this.#chunks.push(chunk.subarray(start));
  }

  #onLine(line: Buffer): void {
    if (line.length === 0) return;
    const message = JSON.parse(line.toString("utf8")) as {
      id?: Id;
      method?: string;
      result?: unknown;
      error?: { message: string };
    };
    this.onMessage?.(message);
    if (message.method !== undefined || message.id === undefined) return; // requests and notifications to us
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new Error(`JSON-RPC error: ${message.error.message}`));
    else pending.resolve(message.result);
  }

  #failAll(error: Error): void {
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.#pending.delete(id);
    }
  }
}
