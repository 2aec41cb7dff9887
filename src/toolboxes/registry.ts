/**
 * The toolboxes a session has opened (each session its own). Opening connects every server of a
 * toolbox in parallel; concurrent opens share one attempt; servers that failed (or were lost) are
 * tried again by the next open, while connected ones are kept as they are. Servers with one
 * definition are one connection, whatever toolboxes (and sessions with the same capabilities)
 * list them: the pool holds them (see pool.ts); each toolbox keeps its own name for it, its own
 * toolFilters view and its own call limits.
 */
import type { ServerConfig, ToolboxConfig, WorkbenchConfig } from "../config/index.ts";
import { type CallToolResult, EmptyResultSchema, type Tool } from "../protocol/sdk.ts";
import type { ServerSession } from "../downstream/server-session.ts";
import type { CallOptions, ConnectionHost } from "../downstream/session-options.ts";
import type { RestartPolicy } from "../downstream/restart-policy.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import type { Timers } from "../downstream/idle-clock.ts";
import type { Upstream } from "../protocol/upstream.ts";
import { applyToolFilters } from "./filters.ts";
import type { Connected, SharedServer } from "./shared-server.ts";
import { type PoolUser, ServerPool } from "./pool.ts";

export type { Connected };

export interface RegistryOptions {
  /** Where each server's tool list is kept once listed, for the next start's instructions. */
  cache?: ListingCache;
  /** A connection attempt ended, connected or not: for `check`'s live progress. */
  onSettled?: (toolbox: string, slot: ServerSlot) => void;
  /** For tests of the idle stop. */
  timers?: Timers;
  /** The session whose toolboxes these are; the host's client otherwise. */
  upstream?: Upstream;
  /** Who the session works for (its ClientIdentity): its servers' processes are its own (see pool.ts). */
  client?: { readonly name: string };
}

/** A server as one toolbox sees it: its name there, its filters, over the shared connection. */
export class ServerSlot {
  readonly name: string;
  readonly config: ServerConfig;
  readonly shared: SharedServer;
  #viewOf?: Tool[];
  #view: Tool[] = [];

  constructor(name: string, config: ServerConfig, shared: SharedServer) {
    this.name = name;
    this.config = config;
    this.shared = shared;
  }

  get connection(): ServerSession | undefined {
    return this.shared.connection;
  }

  get error(): string | undefined {
    return this.shared.error;
  }

  get restarts(): RestartPolicy {
    return this.shared.restarts;
  }

  get startMs(): number | undefined {
    return this.shared.startMs;
  }

  /** The server's tools through this toolbox's toolFilters, as last listed. */
  get tools(): Tool[] {
    const all = this.shared.tools;
    if (this.#viewOf !== all) {
      this.#view = applyToolFilters(all, this.config.toolFilters);
      this.#viewOf = all;
    }
    return this.#view;
  }

  /** What the server said about using it when it initialized, if anything. */
  get instructions(): string | undefined {
    return this.shared.connection?.instructions;
  }

  /** Calls a tool with this toolbox's call limits. */
  callTool(connection: ServerSession, name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const { callTimeoutMs, maxCallTimeMs } = this.config;
    return this.shared.call(connection, name, args, { ...options, limits: { callTimeoutMs, maxCallTimeMs } });
  }
}

/** Who hears of prompts and resources: the workbench server, to tell its client. */
export interface CatalogWatcher {
  /** A server listed its prompts and resources (it connected, or they changed). */
  listingChanged(shared: SharedServer): void;
  /** A server said a subscribed resource changed. */
  resourceUpdated(shared: SharedServer, uri: string): void;
}

/** A configured server, whether or not its toolbox is open. */
export interface ConfiguredServer {
  toolbox: string;
  server: string;
  config: ServerConfig;
  /** Position in the configuration (toolboxes, then servers, in file order). */
  rank: number;
}

export interface OpenToolbox {
  name: string;
  config: ToolboxConfig;
  /** In configuration order. */
  servers: ServerSlot[];
}

export class ToolboxRegistry {
  readonly #config: WorkbenchConfig;
  readonly #open = new Map<string, OpenToolbox>();
  readonly #opening = new Map<string, Promise<OpenToolbox>>();
  readonly #pool: ServerPool;
  /** The pool is this registry's alone (a subcommand's): closing closes it. */
  readonly #ownPool: boolean;
  /** This registry as a user of the pool's servers. */
  readonly #user: PoolUser;
  readonly #options: RegistryOptions;
  /** Every configured server in configuration order, and its slot once one is asked for outside an open. */
  readonly configured: ConfiguredServer[] = [];
  readonly #slots = new Map<ConfiguredServer, ServerSlot>();
  /** The resource URIs this session subscribed to: only their updates reach it. */
  readonly subscriptions = new Set<string>();
  #watcher?: CatalogWatcher;
  #closed = false;

  /** With the process's pool, a session's toolboxes; with a host, a pool of its own (a subcommand's, a test's). */
  constructor(config: WorkbenchConfig, servers: ConnectionHost | ServerPool, options: RegistryOptions = {}) {
    this.#config = config;
    this.#options = options;
    this.#ownPool = !(servers instanceof ServerPool);
    this.#pool = servers instanceof ServerPool ? servers : new ServerPool(config, servers, { cache: options.cache, timers: options.timers });
    this.#user = {
      upstream: options.upstream ?? (servers instanceof ServerPool ? undefined : servers.upstream),
      client: options.client,
      listingChanged: (shared) => this.#watcher?.listingChanged(shared),
      resourceUpdated: (shared, uri) => this.#watcher?.resourceUpdated(shared, uri),
    };
    for (const [toolbox, { mcpServers }] of Object.entries(config.toolboxes)) {
      for (const [server, serverConfig] of Object.entries(mcpServers)) {
        this.configured.push({ toolbox, server, config: serverConfig, rank: this.configured.length });
      }
    }
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
    const missing = toolbox.servers.filter((slot) => !slot.shared.live);
    for (const slot of toolbox.servers) if (slot.shared.live) slot.shared.touch();
    if (missing.length === 0) {
      // Its servers may all be running already (shared with another toolbox, or started for a prompt).
      if (!this.#closed) this.#open.set(name, toolbox);
      return Promise.resolve(toolbox);
    }
    const attempt = Promise.all(missing.map(async (slot) => {
      // An open starts over a server that was given up on; one already starting is joined.
      slot.restarts.reset();
      await slot.shared.connect();
      this.#options.onSettled?.(toolbox.name, slot);
    })).then(() => {
      const anyConnected = toolbox.servers.length === 0 || toolbox.servers.some((slot) => slot.connection);
      if (anyConnected && !this.#closed) this.#open.set(name, toolbox);
      else this.#open.delete(name);
      return toolbox;
    }).finally(() => this.#opening.delete(name));
    this.#opening.set(name, attempt);
    return attempt;
  }

  /** The server's connection, started again first if it was lost or stopped for being idle. */
  connected(slot: ServerSlot, signal?: AbortSignal): Promise<Connected> {
    return slot.shared.connected(signal);
  }

  /** A configured server's slot, without opening its toolbox: for prompts and resources. */
  slot(configured: ConfiguredServer): ServerSlot {
    let slot = this.#slots.get(configured);
    if (!slot) {
      slot = new ServerSlot(configured.server, configured.config, this.#sharedFor(configured.config));
      this.#slots.set(configured, slot);
    }
    return slot;
  }

  /** Set once, by the server that tells the client about prompts and resources. */
  watch(watcher: CatalogWatcher): void {
    this.#watcher = watcher;
  }

  /**
   * The session ended: later opens fail, and servers no other session uses stop. A registry with a
   * pool of its own ends every connection and child, and waits for the listing cache's writes.
   */
  async closeAll(): Promise<void> {
    this.#closed = true;
    this.#open.clear();
    if (this.#ownPool) return await this.#pool.closeAll();
    this.#unsubscribeAll();
    await this.#pool.release(this.#user);
  }

  /**
   * The session's subscriptions end with it: a server that nobody else is subscribed to a URI at
   * is told, as an unsubscribe would tell it (not waited for: the session is gone).
   */
  #unsubscribeAll(): void {
    for (const shared of this.#pool.serversOf(this.#user)) {
      for (const uri of this.subscriptions) {
        if (!shared.subscriptions.get(uri)?.has(this)) continue;
        const connection = shared.connection;
        if (shared.unsubscribed(uri, this) && connection) {
          void shared.request(connection, "resources/unsubscribe", { uri }, EmptyResultSchema).catch(() => {});
        }
      }
    }
    this.subscriptions.clear();
  }

  #fresh(name: string): OpenToolbox {
    const config = this.#config.toolboxes[name];
    if (!config) throw new Error(`Toolbox '${name}' not found in configuration`);
    const servers = Object.entries(config.mcpServers).map(([server, serverConfig]) =>
      new ServerSlot(server, serverConfig, this.#sharedFor(serverConfig))
    );
    return { name, config, servers };
  }

  #sharedFor(config: ServerConfig): SharedServer {
    return this.#pool.serverFor(config, this.#user);
  }
}
