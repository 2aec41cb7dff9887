/**
 * The toolboxes a session has opened. Opening connects every server of a toolbox in parallel;
 * concurrent opens share one attempt; servers that failed (or were lost) are tried again by the
 * next open, while connected ones are kept as they are.
 */
import type { ToolboxConfig, WorkbenchConfig } from "../config/index.ts";
import { type ConnectionHost, ServerConnection } from "./connection.ts";

export interface ServerSlot {
  name: string;
  connection?: ServerConnection;
  /** Why there is no connection, for messages. */
  error?: string;
}

export interface OpenToolbox {
  name: string;
  config: ToolboxConfig;
  /** In configuration order. */
  servers: ServerSlot[];
}

export class ToolboxRegistry {
  readonly #config: WorkbenchConfig;
  readonly #host: ConnectionHost;
  readonly #open = new Map<string, OpenToolbox>();
  readonly #opening = new Map<string, Promise<OpenToolbox>>();
  /** Every live child, connecting or connected, so that shutdown reaches them all. */
  readonly #connections = new Set<ServerConnection>();
  #closed = false;

  constructor(config: WorkbenchConfig, host: ConnectionHost) {
    this.#config = config;
    this.#host = host;
  }

  /** The toolbox if it is open (at least one server connected, or none configured). */
  get(name: string): OpenToolbox | undefined {
    return this.#open.get(name);
  }

  /** Opens a configured toolbox; the result says per server what connected and what failed. */
  open(name: string): Promise<OpenToolbox> {
    const pending = this.#opening.get(name);
    if (pending) return pending;
    const toolbox = this.#open.get(name) ?? this.#fresh(name);
    const missing = toolbox.servers.filter((slot) => !slot.connection || slot.connection.lostReason);
    if (missing.length === 0) return Promise.resolve(toolbox);
    const attempt = Promise.all(missing.map((slot) => this.#connect(toolbox, slot))).then(() => {
      const anyConnected = toolbox.servers.length === 0 || toolbox.servers.some((slot) => slot.connection);
      if (anyConnected && !this.#closed) this.#open.set(name, toolbox);
      else this.#open.delete(name);
      return toolbox;
    }).finally(() => this.#opening.delete(name));
    this.#opening.set(name, attempt);
    return attempt;
  }

  /** Ends every connection and child; later opens fail. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    this.#open.clear();
    await Promise.all([...this.#connections].map((connection) => connection.close()));
  }

  #fresh(name: string): OpenToolbox {
    const config = this.#config.toolboxes[name];
    if (!config) throw new Error(`Toolbox '${name}' not found in configuration`);
    const servers = Object.keys(config.mcpServers).map((server) => ({ name: server }));
    return { name, config, servers };
  }

  async #connect(toolbox: OpenToolbox, slot: ServerSlot): Promise<void> {
    const previous = slot.connection;
    slot.connection = undefined;
    if (previous) void this.#release(previous);
    if (this.#closed) {
      slot.error = "the workbench is shutting down";
      return;
    }
    const target = { toolbox: toolbox.name, server: slot.name, config: toolbox.config.mcpServers[slot.name] };
    let connection: ServerConnection;
    try {
      connection = ServerConnection.spawn(target, this.#host);
    } catch (error) {
      slot.error = messageOf(error);
      return;
    }
    this.#connections.add(connection);
    try {
      await connection.connect();
      slot.connection = connection;
      slot.error = undefined;
    } catch (error) {
      slot.error = messageOf(error);
      this.#connections.delete(connection);
    }
  }

  async #release(connection: ServerConnection): Promise<void> {
    await connection.close();
    this.#connections.delete(connection);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
