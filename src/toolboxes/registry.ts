/**
 * The toolboxes a session has opened (each session its own). Opening connects every server of a
 * toolbox in parallel; concurrent opens share one attempt; servers that failed (or were lost) are
 * tried again by the next open, while connected ones are kept as they are. Servers with one
 * definition are one connection, whatever toolboxes (and sessions with the same capabilities)
 * list them: the pool holds them (see pool.ts); each toolbox keeps its own name for it, its own
 * toolFilters view and its own call limits.
 */
import type { ServerConfig, ToolboxConfig, WorkbenchConfig } from "../config/index.ts";
import { EmptyResultSchema } from "../protocol/sdk.ts";
import type { ServerSessionHost } from "../downstream/session-options.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import { samePlaces } from "./offer.ts";
import { approvedAs } from "../config/member-secrets.ts";
import type { Timers } from "../downstream/idle-clock.ts";
import type { Upstream } from "../protocol/upstream.ts";
import type { Connected, SharedServer } from "./shared-server.ts";
import type { Span } from "../telemetry/index.ts";
import { type PoolUser, ServerPool } from "./pool.ts";
import type { PinStore } from "./pin-store.ts";
import { ServerSlot, type SlotTrust } from "./server-slot.ts";
import { graceAfterFirst, OPEN_GRACE_MS, type Opening, type OpenToolbox } from "./opening.ts";
import { type ConfiguredServer, configuredIn } from "./configured.ts";

export type { ConfiguredServer };

export type { Connected };
export { OPEN_GRACE_MS, ServerSlot };
export type { OpenToolbox };

export interface RegistryOptions {
  /** Where each server's tool list is kept once listed, for the next start's instructions. */
  cache?: ListingCache;
  /** A connection attempt ended, connected or not: for `check`'s live progress. */
  onSettled?: (toolbox: string, slot: ServerSlot) => void;
  /** For tests of the idle stop. */
  timers?: Timers;
  /** The session whose toolboxes these are; the host's client otherwise. */
  upstream?: Upstream;
  /** The lock file whose pins decide which tools are offered (else the pool's; none: every tool is). */
  pins?: PinStore;
  /** Who the session works for (its ClientIdentity): its servers' processes are its own (see pool.ts). */
  client?: { readonly name: string };
  /** The names of the toolboxes the session opened, kept in its store (see upstream/session-state.ts): another replica opens them again. */
  kept?: KeptToolboxes;
  /** How long an open waits for the other servers once one answered (OPEN_GRACE_MS; Infinity: for all). */
  openGraceMs?: number;
}

/** The names of a session's open toolboxes, kept where any replica finds them. */
export interface KeptToolboxes {
  add(name: string): Promise<void>;
  has(name: string): Promise<boolean>;
}

/** Who hears of prompts and resources: the workbench server, to tell its client. */
export interface CatalogWatcher {
  /** A server listed its prompts and resources (it connected, or they changed). */
  listingChanged(shared: SharedServer): void;
  /** A server said a subscribed resource changed. */
  resourceUpdated(shared: SharedServer, uri: string): void;
}

export class ToolboxRegistry {
  #config: WorkbenchConfig;
  /** Counts configuration changes: an open that began under another configuration starts over. */
  #generation = 0;
  readonly #open = new Map<string, OpenToolbox>();
  readonly #opening = new Map<string, Opening>();
  readonly #pool: ServerPool;
  /** The pool is this registry's alone (a subcommand's): closing closes it. */
  readonly #ownPool: boolean;
  /** This registry as a user of the pool's servers. */
  readonly #user: PoolUser;
  readonly #options: RegistryOptions;
  /** Every configured server in configuration order (a new array when the configuration changes). */
  configured: ConfiguredServer[];
  /** A configured server's slot, once one is asked for outside an open. */
  #slots = new Map<ConfiguredServer, ServerSlot>();
  /** The resource URIs this session subscribed to: only their updates reach it. */
  readonly subscriptions = new Set<string>();
  #watcher?: CatalogWatcher;
  #closed = false;

  /** With the process's pool, a session's toolboxes; with a host, a pool of its own (a subcommand's, a test's). */
  constructor(config: WorkbenchConfig, servers: ServerSessionHost | ServerPool, options: RegistryOptions = {}) {
    this.#config = config;
    this.#options = options;
    this.#ownPool = !(servers instanceof ServerPool);
    const { cache, timers, pins } = options;
    this.#pool = servers instanceof ServerPool ? servers : new ServerPool(config, servers, { cache, timers, pins });
    this.#user = {
      upstream: options.upstream ?? (servers instanceof ServerPool ? undefined : servers.upstream),
      client: options.client,
      listingChanged: (shared) => this.#watcher?.listingChanged(shared),
      resourceUpdated: (shared, uri) => this.#watcher?.resourceUpdated(shared, uri),
    };
    this.configured = configuredIn(config);
  }

  /**
   * The configuration changed (it applies live; the pool took it first, see ServerPool.reconfigure):
   * an open toolbox still configured is rebuilt from it and stays open, a removed one is closed,
   * other slots are made again when asked for. A server whose definition did not change is the same
   * shared server, so its process and calls go on; filters and call limits are the new ones. The
   * servers new to an open toolbox (added, or changed) are started now.
   */
  reconfigure(config: WorkbenchConfig): void {
    if (this.#closed) return;
    this.#config = config;
    this.#generation++;
    this.configured = configuredIn(config);
    this.#slots = new Map();
    for (const name of [...this.#open.keys()]) {
      if (!Object.hasOwn(config.toolboxes, name)) {
        this.#open.delete(name);
        continue;
      }
      const before = new Set(this.#open.get(name)!.servers.map((slot) => slot.shared));
      const toolbox = this.#fresh(name);
      this.#open.set(name, toolbox);
      // Only servers new to it: one stopped for being idle, or given up on, stays as it was.
      for (const slot of toolbox.servers) if (!before.has(slot.shared) && !slot.shared.live) void slot.shared.connect();
    }
  }

  /** The pool of servers this registry's sessions share with the process's others. */
  get pool(): ServerPool {
    return this.#pool;
  }

  /** Who the session works for: its name (the local user when not said). */
  get client(): string | undefined {
    return this.#options.client?.name;
  }

  /** The toolbox if it has been opened (with a server connected then, or none configured). */
  get(name: string): OpenToolbox | undefined {
    return this.#open.get(name);
  }

  /**
   * Opens a configured toolbox; the result says per server what connected, what failed, what is
   * still starting (it joins the open toolbox when it answers), and what is withheld. Every server
   * is waited for, but no longer than openGraceMs after the first one answered; with `server`,
   * only that one is waited for (its toolbox opens as soon as it answers: a call needs no other).
   */
  async open(name: string, server?: string, span?: Span): Promise<OpenToolbox> {
    const toolbox = await this.#connect(name, server, span);
    await Promise.all(toolbox.servers.filter((slot) => server === undefined || slot.name === server).map((slot) => slot.trust()));
    return toolbox;
  }

  #connect(name: string, server: string | undefined, span: Span | undefined): Promise<OpenToolbox> {
    const joined = this.#opening.get(name);
    const opening = joined ?? this.#start(name, span);
    if (opening.done) return opening.done;
    const { toolbox, generation } = opening;
    const wanted = toolbox.servers.filter((slot) => server === undefined || slot.name === server);
    // Open already, joining the start of servers someone waited for: named at once, not waited for again.
    // Opened again, with servers started again: the grace runs from now (a failed one's error comes within it).
    const answered = server !== undefined
      ? Promise.all(wanted.map((slot) => opening.settled.get(slot)))
      : joined && this.#open.get(name) === toolbox
      ? Promise.resolve()
      : graceAfterFirst(opening, this.#options.openGraceMs ?? OPEN_GRACE_MS);
    const early = answered.then(() => {
      if (generation !== this.#generation) return undefined;
      const connected = wanted.some((slot) => slot.serverSession);
      if (connected) this.#opened(name, toolbox);
      // One server asked for is answered either way: connected, or with its error.
      return connected || server !== undefined ? toolbox : undefined;
    });
    // Whichever comes first: every server settled, or the ones waited for answered.
    return Promise.race([opening.all, early.then((done) => done ?? opening.all)]);
  }

  /** Starts the toolbox's servers that are not running; `done` when none needed starting. */
  #start(name: string, span: Span | undefined): Opening {
    const toolbox = this.#open.get(name) ?? this.#fresh(name);
    const generation = this.#generation;
    const missing = toolbox.servers.filter((slot) => !slot.shared.live);
    for (const slot of toolbox.servers) if (slot.shared.live) slot.shared.touch();
    if (missing.length === 0) {
      // Its servers may all be running already (shared with another toolbox, or started for a prompt).
      this.#opened(name, toolbox);
      const done = Promise.resolve(toolbox);
      return { toolbox, generation, done, all: done, settled: new Map() };
    }
    const settled = new Map<ServerSlot, Promise<void>>(toolbox.servers.map((slot) => [slot, Promise.resolve()]));
    for (const slot of missing) {
      settled.set(slot, (async () => {
        // An open starts over a server that was given up on; one already starting is joined.
        slot.restarts.reset();
        await slot.shared.connect(span);
        this.#options.onSettled?.(toolbox.name, slot);
      })());
    }
    const attempt = Promise.all(settled.values()).then(() => {
      if (generation !== this.#generation) return undefined;
      const anyConnected = toolbox.servers.length === 0 || toolbox.servers.some((slot) => slot.serverSession);
      if (anyConnected) this.#opened(name, toolbox);
      else this.#open.delete(name);
      return toolbox;
    }).finally(() => this.#opening.delete(name));
    // The configuration changed meanwhile: the toolbox is opened again as it is now (once per change).
    const all = attempt.then((done) => done ?? (Object.hasOwn(this.#config.toolboxes, name) ? this.open(name) : toolbox));
    const opening: Opening = { toolbox, generation, all, settled };
    this.#opening.set(name, opening);
    return opening;
  }

  /** A toolbox is open (unless the session ended): held here, its name kept in the session's store. */
  #opened(name: string, toolbox: OpenToolbox): void {
    if (this.#closed) return;
    const known = this.#open.has(name);
    this.#open.set(name, toolbox);
    // A store that cannot be reached is said where the session reads it; the toolbox is open here all the same.
    if (!known) void this.#options.kept?.add(name).catch(() => {});
  }

  /** True when the session opened this toolbox, here or (by its store) on another replica. */
  async wasOpened(name: string): Promise<boolean> {
    return this.#open.has(name) || (await this.#options.kept?.has(name) ?? false);
  }

  /** A configured server's slot, without opening its toolbox: for prompts and resources. */
  slot(configured: ConfiguredServer): ServerSlot {
    let slot = this.#slots.get(configured);
    if (!slot && !this.configured.includes(configured)) {
      // Found before the configuration changed: the server as configured now, and never a ghost of one removed.
      const now = this.configured.find((one) => one.toolbox === configured.toolbox && one.server === configured.server);
      if (!now) throw new Error(`Server '${configured.server}' is no longer in toolbox '${configured.toolbox}' of the configuration`);
      return this.slot(now);
    }
    if (!slot) {
      const { toolbox, server, config } = configured;
      slot = new ServerSlot(server, config, this.#sharedFor(config), this.#trustFor(toolbox, server, config));
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
  async closeAll(options: { graceful?: boolean } = {}): Promise<void> {
    this.#closed = true;
    this.#open.clear();
    if (this.#ownPool) return await this.#pool.closeAll(options);
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
        const serverSession = shared.serverSession;
        if (shared.subscriptions.remove(uri, this) && serverSession) {
          void shared.request(serverSession, "resources/unsubscribe", { uri }, EmptyResultSchema).catch(() => {});
        }
      }
    }
    this.subscriptions.clear();
  }

  #fresh(name: string): OpenToolbox {
    const config = this.#config.toolboxes[name];
    if (!config) throw new Error(`Toolbox '${name}' not found in configuration`);
    const servers = Object.entries(config.mcpServers).map(([server, serverConfig]) =>
      new ServerSlot(server, serverConfig, this.#sharedFor(serverConfig), this.#trustFor(name, server, serverConfig))
    );
    return { name, config, servers };
  }

  /** `"pin": false` leaves a server out of the lock: neither read nor written for it. */
  #trustFor(toolbox: string, server: string, config: ServerConfig): SlotTrust | undefined {
    const pins = this.#options.pins ?? this.#pool.pins;
    if (!pins || !config.pin) return undefined;
    const client = this.#options.client?.name;
    const approveAs = approvedAs(config, client);
    return { toolbox, pins, same: samePlaces(this.#config, toolbox, server, config), ...(approveAs && { approveAs }) };
  }

  #sharedFor(config: ServerConfig): SharedServer {
    return this.#pool.serverFor(config, this.#user);
  }
}
