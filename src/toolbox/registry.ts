/**
 * The toolboxes a session has opened. Opening connects every server of a toolbox in parallel;
 * concurrent opens share one attempt; servers that failed (or were lost) are tried again by the
 * next open, while connected ones are kept as they are. A server that crashes is restarted by the
 * next call that needs it, with backoff, until it fails too often in a row.
 */
import type { ToolboxConfig, WorkbenchConfig } from "../config/index.ts";
import { type ConnectionHost, ServerConnection } from "./connection.ts";
import { RestartPolicy } from "./restart-policy.ts";
import type { CatalogCache } from "./catalog-cache.ts";
import { messageOf } from "../errors.ts";

export interface ServerSlot {
  name: string;
  connection?: ServerConnection;
  /** Why there is no connection, for messages. */
  error?: string;
  restarts: RestartPolicy;
  /** A connection attempt under way, shared by everyone who needs this server. */
  connecting?: Promise<void>;
  /** How long the last attempt took, in whole milliseconds. */
  startMs?: number;
}

export interface RegistryOptions {
  /** Where each server's tool list is kept once listed, for the next start's instructions. */
  catalog?: CatalogCache;
  /** A connection attempt ended, connected or not: for `check`'s live progress. */
  onSettled?: (toolbox: string, slot: ServerSlot) => void;
}

export interface OpenToolbox {
  name: string;
  config: ToolboxConfig;
  /** In configuration order. */
  servers: ServerSlot[];
}

export type Connected = { ok: true; connection: ServerConnection } | { ok: false; error: string };

export class ToolboxRegistry {
  readonly #config: WorkbenchConfig;
  readonly #host: ConnectionHost;
  readonly #open = new Map<string, OpenToolbox>();
  readonly #opening = new Map<string, Promise<OpenToolbox>>();
  /** Every live child, connecting or connected, so that shutdown reaches them all. */
  readonly #connections = new Set<ServerConnection>();
  readonly #options: RegistryOptions;
  #closed = false;

  constructor(config: WorkbenchConfig, host: ConnectionHost, options: RegistryOptions = {}) {
    this.#config = config;
    this.#host = host;
    this.#options = options;
  }

  /** The toolbox if it has been opened (with a server connected then, or none configured). */
  get(name: string): OpenToolbox | undefined {
    return this.#open.get(name);
  }

  /** Opens a configured toolbox; the result says per server what connected and what failed. */
  open(name: string): Promise<OpenToolbox> {
    const pending = this.#opening.get(name);
    if (pending) return pending;
    const toolbox = this.#open.get(name) ?? this.#fresh(name);
    const missing = toolbox.servers.filter((slot) => !isLive(slot));
    if (missing.length === 0) return Promise.resolve(toolbox);
    const attempt = Promise.all(missing.map((slot) => {
      slot.restarts.reset();
      return this.#connect(toolbox, slot);
    })).then(() => {
      const anyConnected = toolbox.servers.length === 0 || toolbox.servers.some((slot) => slot.connection);
      if (anyConnected && !this.#closed) this.#open.set(name, toolbox);
      else this.#open.delete(name);
      return toolbox;
    }).finally(() => this.#opening.delete(name));
    this.#opening.set(name, attempt);
    return attempt;
  }

  /**
   * The server's connection, restarted first if it was lost: the first restart after a crash is
   * immediate, later ones wait out the backoff (the wait ends early if the call is cancelled).
   */
  async connected(toolbox: OpenToolbox, slot: ServerSlot, signal?: AbortSignal): Promise<Connected> {
    if (isLive(slot)) return { ok: true, connection: slot.connection! };
    const lost = slot.connection;
    if (lost?.lostReason) {
      // Counted once, here, synchronously: concurrent callers then see no connection at all.
      slot.connection = undefined;
      slot.error = lost.lostReason;
      slot.restarts.failed(lost.lostReason);
      void this.#release(lost).catch(() => {});
    }
    if (slot.restarts.givenUp) {
      const { failures, lastReason } = slot.restarts;
      return {
        ok: false,
        error: `server is down after ${failures} failures in a row (last: ${lastReason}); call open_toolbox to start it again`,
      };
    }
    await slot.restarts.waitForTurn(signal);
    if (signal?.aborted) return { ok: false, error: "cancelled by the client" };
    await this.#connect(toolbox, slot);
    if (slot.connection) return { ok: true, connection: slot.connection };
    return { ok: false, error: `restart failed: ${slot.error}` };
  }

  /** Ends every connection and child; later opens fail. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    this.#open.clear();
    await Promise.allSettled([...this.#connections].map((connection) => connection.close()));
  }

  #fresh(name: string): OpenToolbox {
    const config = this.#config.toolboxes[name];
    if (!config) throw new Error(`Toolbox '${name}' not found in configuration`);
    const servers = Object.keys(config.mcpServers).map((server) => ({ name: server, restarts: new RestartPolicy() }));
    return { name, config, servers };
  }

  /** One attempt at a time per server: a concurrent caller waits for the same attempt. */
  #connect(toolbox: OpenToolbox, slot: ServerSlot): Promise<void> {
    slot.connecting ??= this.#attempt(toolbox, slot).finally(() => (slot.connecting = undefined));
    return slot.connecting;
  }

  async #attempt(toolbox: OpenToolbox, slot: ServerSlot): Promise<void> {
    if (isLive(slot)) return;
    const previous = slot.connection;
    slot.connection = undefined;
    if (previous) void this.#release(previous).catch(() => {});
    if (this.#closed) {
      slot.error = "the workbench is shutting down";
      return;
    }
    const target = { toolbox: toolbox.name, server: slot.name, config: toolbox.config.mcpServers[slot.name] };
    let connection: ServerConnection | undefined;
    const started = performance.now();
    try {
      connection = ServerConnection.open(target, this.#host);
      this.#connections.add(connection);
      await connection.connect();
      slot.connection = connection;
      slot.error = undefined;
      void this.#options.catalog?.remember(target.config, connection.tools).catch(() => {});
    } catch (error) {
      slot.error = messageOf(error);
      slot.restarts.failed(slot.error);
      if (connection) this.#connections.delete(connection);
    }
    slot.startMs = Math.round(performance.now() - started);
    this.#options.onSettled?.(toolbox.name, slot);
  }

  async #release(connection: ServerConnection): Promise<void> {
    await connection.close();
    this.#connections.delete(connection);
  }
}

function isLive(slot: ServerSlot): boolean {
  return slot.connection !== undefined && slot.connection.lostReason === undefined;
}
