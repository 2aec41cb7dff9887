/**
 * The process's shared servers, for every session in it: one per server definition (see
 * config/definition.ts) and set of capabilities declared to it. A server never sees a capability
 * the client it works for lacks, so sessions that declared the same (as mirroredCapabilities
 * gives them to a server) share one process per definition, and a session that declared other
 * capabilities gets another. The key is what the server is given, normalised
 * (downstream/forwarded-capabilities.ts), not what the client wrote: a server's tools and
 * requests can depend only on what it sees, and a client that varies the rest (issue 38: 25
 * requests with new objects started 26 processes) starts nothing new. Extensions are given as
 * flags, and only those the server declared once one of its processes said which (issue 52); a
 * process started before that was given every extension the session declared, and is shared with
 * the sessions that differ from it only in others. Each client (see upstream/client-identity.ts) gets
 * processes of its own, with its name for `${WORKBENCH_CLIENT}` and its secrets, unless the server
 * says `"share": "all"`. A server stops when no session uses it any more, or at shutdown.
 */
import type { ServeClientConfig, ServerConfig, WorkbenchConfig } from "../config/index.ts";
import type { ClientCapabilities } from "../protocol/sdk.ts";
import { processSettingsKey, sharedConfig, sharingKey } from "../config/definition.ts";
import { forClient, LOCAL_CLIENT_NAME } from "../config/client-variable.ts";
import { type MemberSecrets, withSecrets } from "../config/member-secrets.ts";
import type { ServerSession } from "../downstream/server-session.ts";
import type { ServerSessionHost } from "../downstream/session-options.ts";
import type { Timers } from "../downstream/idle-clock.ts";
import { mirroredCapabilities, withExtensionsOf } from "../downstream/forwarded-capabilities.ts";
import { capabilityKey, type ListingCache } from "../cache/listing-cache.ts";
import type { Upstream } from "../protocol/upstream.ts";
import type { ChatLogin } from "../auth/chat-login.ts";
import type { Telemetry } from "../telemetry/index.ts";
import { SharedServer } from "./shared-server.ts";
import { ServerUsers } from "./server-users.ts";
import type { ProvidedSecrets } from "./start-credentials.ts";
import type { MemberVault } from "../auth/member-vault.ts";
import type { PinStore } from "./pin-store.ts";

/** Who uses shared servers: a session's toolboxes (with its client), or a subcommand's (none). */
export interface PoolUser {
  /** The client the servers work for; none for the subcommands. */
  readonly upstream?: Upstream;
  /** Who the servers work for (a ClientIdentity, see upstream/client-identity.ts); the local user when not said. */
  readonly client?: { readonly name: string };
  /** A server listed its prompts and resources (it connected, or they changed). */
  listingChanged?(shared: SharedServer): void;
  /** A server said a subscribed resource changed. */
  resourceUpdated?(shared: SharedServer, uri: string): void;
}

export interface PoolOptions {
  /** Where each server's tool list is kept once listed, for the next start's instructions. */
  cache?: ListingCache;
  /** For tests of the idle stop. */
  timers?: Timers;
  /** A login in the client, for the sessions a server works for (it reaches the one there is). */
  chatLogin?: (upstream: Upstream) => ChatLogin;
  /** The lock file that pins the servers' tools, for every session's toolboxes. */
  pins?: PinStore;
}

interface Entry {
  shared: SharedServer;
  /** What its process is given (none for a subcommand's), and the client it works for (none: every client). */
  given?: ClientCapabilities;
  client: string | null;
  /** Its sharing key, and every configured server of that definition now (the configuration may change). */
  definition: string;
  configured: Configured[];
  /** processSettingsKey of the settings it was started with. */
  settings: string;
  users: Set<PoolUser>;
  /** The sessions among the users, as the server's one Upstream; none for a subcommand's server. */
  sessions?: ServerUsers;
  released: boolean;
}

type Configured = { toolbox: string; server: string; config: ServerConfig };

export class ServerPool {
  #host: ServerSessionHost;
  readonly #options: PoolOptions;
  /** Every configured server by sharing key, in configuration order: one definition's settings are merged. */
  readonly #byKey = new Map<string, Configured[]>();
  /** Each member's secrets (`serve.clients.<name>.secrets`), for `${client:NAME}`. */
  #secrets: Record<string, ServeClientConfig> = {};
  /** What members provided themselves (auth/member-vault.ts), read at each start of a server that lacks one. */
  #provided?: ProvidedSecrets;
  /** Every shared server, by sharing key, declared capabilities and client (none for `"share": "all"`). */
  readonly #entries = new Map<string, Entry>();
  /** The extensions each definition's server declared, as its last process to connect said. */
  readonly #declaredBy = new Map<string, string[]>();
  /** Every live connection, connecting or connected, so that shutdown reaches them all. */
  readonly #serverSessions = new Set<ServerSession>();
  #closed = false;

  constructor(config: WorkbenchConfig, host: ServerSessionHost, options: PoolOptions = {}) {
    // Each server is given its own sessions: the host's client, if any, is not theirs.
    const { upstream: _, ...rest } = host;
    this.#host = rest;
    this.#options = options;
    this.#index(config);
  }

  /** Members may give their own secrets and logins (serving over HTTP): read at each start of their servers (member-logins.ts). */
  provideWith(vault: MemberVault): void {
    this.#provided = vault;
    this.#host = { ...this.#host, vault };
  }

  /** Telemetry on (opened after the pool): the servers started from now on make CLIENT spans of their own requests. */
  traceWith(telemetry: Telemetry): void {
    this.#host = { ...this.#host, telemetry };
  }

  #index(config: WorkbenchConfig): void {
    this.#byKey.clear();
    this.#secrets = config.serve?.clients ?? {};
    for (const [toolbox, { mcpServers }] of Object.entries(config.toolboxes)) {
      for (const [server, serverConfig] of Object.entries(mcpServers)) {
        const key = sharingKey(serverConfig);
        this.#byKey.set(key, [...this.#byKey.get(key) ?? [], { toolbox, server, config: serverConfig }]);
      }
    }
  }

  /** The lock file that pins the servers' tools, if pinning is on. */
  get pins(): PinStore | undefined {
    return this.#options.pins;
  }

  /** Server processes (or remote sessions) running now, connecting or connected. */
  get running(): number {
    return this.#serverSessions.size;
  }

  /** The shared server a user gets for a configured server, counting it as a user from now on. */
  serverFor(config: ServerConfig, user: PoolUser): SharedServer {
    const definition = sharingKey(config);
    const configured = this.#byKey.get(definition) ?? [{ toolbox: "", server: "", config }];
    const merged = sharedConfig(configured.map((one) => one.config));
    // Only the extensions the server declared, once one of its processes said which (see #declaredBy).
    const known = this.#declaredBy.get(definition);
    const mirrored = user.upstream && mirroredCapabilities(user.upstream.capabilities, merged.roots);
    const given = mirrored && (known ? withExtensionsOf(mirrored, known) : mirrored);
    const declared = given ? capabilityKey(given) : null;
    const client = merged.share === "all" ? null : user.client?.name ?? LOCAL_CLIENT_NAME;
    const key = JSON.stringify([definition, declared, client]);
    let entry = this.#entries.get(key) ?? (known && this.#givenAlike(definition, client, declared, known));
    if (!entry) {
      const config = this.#forMember(merged, client);
      entry = this.#entry(definition, configured, this.#settings(merged, client), config, given, client);
      this.#entries.set(key, entry);
    }
    if (!entry.users.has(user)) {
      entry.users.add(user);
      if (user.upstream) entry.sessions?.add(user.upstream);
    }
    return entry.shared;
  }

  /** The server as it runs for a member: its name for `${WORKBENCH_CLIENT}`, its secrets for `${client:NAME}`. */
  #forMember(merged: ServerConfig, client: string | null, provided?: Record<string, string>): ServerConfig {
    return client === null ? merged : withSecrets(forClient(merged, client), client, this.#secretsOf(client, provided));
  }

  /** Settings as reconfigure() compares them, with the member's secrets in the file now (one changed there starts anew). */
  #settings(merged: ServerConfig, client: string | null): string {
    const config = this.#forMember(merged, client);
    return JSON.stringify([processSettingsKey(merged), config.unconfigured ?? null, config.memberValues ?? []]);
  }

  /**
   * A member's secrets: a `serve` client's own; the local user's are the environment's variables.
   * Nobody else's, ever: a name that is not a client's has none.
   */
  #secretsOf(client: string, provided: Record<string, string> = {}): MemberSecrets {
    if (client === LOCAL_CLIENT_NAME) return { values: this.#host.env };
    const own = Object.hasOwn(this.#secrets, client) ? this.#secrets[client] : undefined;
    // What the file sets wins: a member provides only what it leaves out.
    const values = { ...provided, ...own?.secrets };
    return { values, unreadable: own?.secretsUnreadable, configured: own !== undefined, providable: this.#provided !== undefined };
  }

  /**
   * A process started before its server's extensions were known, given the same but for extensions
   * the server did not declare (it was given every extension the session declared).
   */
  #givenAlike(definition: string, client: string | null, declared: string | null, known: readonly string[]): Entry | undefined {
    for (const entry of this.#entries.values()) {
      if (entry.definition !== definition || entry.client !== client || !entry.given) continue;
      if (capabilityKey(withExtensionsOf(entry.given, known)) === declared) return entry;
    }
    return undefined;
  }

  /** The shared servers a user has now. */
  serversOf(user: PoolUser): SharedServer[] {
    return [...this.#entries.values()].filter((entry) => entry.users.has(user)).map((entry) => entry.shared);
  }

  /** The user is gone: servers no other user has are stopped. */
  async release(user: PoolUser): Promise<void> {
    const stopping: Promise<void>[] = [];
    for (const [key, entry] of this.#entries) {
      if (!entry.users.delete(user)) continue;
      if (user.upstream) entry.sessions?.delete(user.upstream);
      if (entry.users.size > 0) continue;
      entry.released = true;
      this.#entries.delete(key);
      stopping.push(entry.shared.close());
    }
    await Promise.allSettled(stopping);
  }

  /**
   * Ends every connection and child, and waits for the listing cache's writes; later starts fail.
   * Not graceful: a child gets SIGTERM with its stdin closed, not 2 s later (a command interrupted).
   */
  async closeAll({ graceful = true } = {}): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#entries.values()].map((entry) => entry.shared.close(graceful)));
    await Promise.allSettled([...this.#serverSessions].map((serverSession) => serverSession.close({ graceful })));
    // What the servers listed reaches the cache before a command exits.
    await this.#options.cache?.flush();
  }

  /**
   * A new configuration (it applies live): a server whose definition is gone, or whose process
   * settings changed, leaves the pool (sessions asking for it from now on get a new one) and is
   * given back, to be drained and stopped; the others go on running. Call this before the
   * sessions' registries take the configuration, so that they find the new servers.
   */
  reconfigure(config: WorkbenchConfig): SharedServer[] {
    this.#index(config);
    const retired: SharedServer[] = [];
    for (const [key, entry] of this.#entries) {
      const configured = this.#byKey.get(entry.definition);
      if (configured && this.#settings(sharedConfig(configured.map((one) => one.config)), entry.client) === entry.settings) {
        entry.configured = configured;
        continue;
      }
      entry.released = true;
      this.#entries.delete(key);
      retired.push(entry.shared);
    }
    return retired;
  }

  #entry(
    definition: string,
    configured: Configured[],
    settings: string,
    config: ServerConfig,
    given: ClientCapabilities | undefined,
    client: string | null,
  ): Entry {
    const [first] = configured;
    const sessions = given ? new ServerUsers(given) : undefined;
    const chatLogin = sessions && this.#options.chatLogin ? this.#options.chatLogin(sessions) : this.#host.chatLogin;
    const sessionHost: ServerSessionHost = { ...this.#host, upstream: sessions, chatLogin };
    const entry: Entry = { definition, configured, settings, users: new Set(), sessions, given, client, released: false } as Entry;
    const own = client !== null && client !== LOCAL_CLIENT_NAME ? { client } : {};
    entry.shared = new SharedServer({ toolbox: first.toolbox, server: first.server, config, ...own }, {
      sessionHost,
      live: this.#serverSessions,
      closed: () => this.#closed || entry.released,
      onListed: (shared) => {
        const extensions = shared.serverSession?.listing.extensions;
        if (extensions) this.#declaredBy.set(definition, extensions);
        this.#remember(entry.configured, shared, client);
      },
      onListingChanged: (shared) => {
        this.#remember(entry.configured, shared, client);
        for (const user of [...entry.users]) user.listingChanged?.(shared);
      },
      onResourceUpdated: (shared, uri) => {
        for (const user of [...entry.users]) user.resourceUpdated?.(shared, uri);
      },
      timers: this.#options.timers,
      provide: this.#provided && client !== null && client !== LOCAL_CLIENT_NAME
        ? async () => this.#forMember(sharedConfig(entry.configured.map((one) => one.config)), client, await this.#provided!.values(client))
        : undefined,
    });
    return entry;
  }

  /** Each configured server of this definition keeps its own view in the listing cache. */
  #remember(configured: Configured[], shared: SharedServer, client: string | null): void {
    const cache = this.#options.cache;
    if (!cache) return;
    // The list is the one made for what this connection declared: the cache keeps one per set.
    const declared = shared.serverSession && capabilityKey(shared.serverSession.declared);
    for (const { config } of configured) {
      // A process of one client's own (named for it with ${WORKBENCH_CLIENT} or not) lists what is
      // that client's: it is kept for that client alone (see ListingCache), so its tool count shows.
      // Never in the file of a toolbox that says "share": "all" (every client reads that one) when
      // another toolbox keeps clients apart, so that the process is this client's own.
      if (client !== null && config.share === "all") continue;
      // As listed: what each toolbox is offered of it is decided where it is read (the offer), not here.
      void cache.remember(config, shared.tools, shared.listing, declared, client ?? undefined).catch(() => {});
    }
  }
}
