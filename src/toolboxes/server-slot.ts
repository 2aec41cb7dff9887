/**
 * A server as one toolbox sees it: its name there, its toolFilters and pins, its call limits, over
 * the connection that the pool shares among toolboxes and sessions.
 */
import type { ServerConfig } from "../config/index.ts";
import type { CallToolResult, Tool } from "../protocol/sdk.ts";
import type { ServerSession } from "../downstream/server-session.ts";
import type { CallOptions } from "../downstream/session-options.ts";
import type { RestartPolicy } from "../downstream/restart-policy.ts";
import { applyToolFilters } from "./filters.ts";
import type { SharedServer } from "./shared-server.ts";
import type { LockSnapshot, PinStore } from "./pin-store.ts";
import { trustedView, type Withheld } from "./withheld.ts";

/** Where a slot's pins are: its toolbox's name in the lock file, and the lock. */
export interface SlotTrust {
  toolbox: string;
  pins: PinStore;
}

/** A server as one toolbox sees it: its name there, its filters and pins, over the shared connection. */
export class ServerSlot {
  readonly name: string;
  readonly config: ServerConfig;
  readonly shared: SharedServer;
  readonly #trust?: SlotTrust;
  #viewOf?: Tool[];
  #viewLock?: LockSnapshot;
  #view: Tool[] = [];
  #withheld: Withheld[] = [];

  constructor(name: string, config: ServerConfig, shared: SharedServer, trust?: SlotTrust) {
    this.name = name;
    this.config = config;
    this.shared = shared;
    this.#trust = trust;
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

  /** The server's tools through this toolbox's toolFilters, as last listed, without those withheld. */
  get tools(): Tool[] {
    const all = this.shared.tools;
    const lock = this.#trust?.pins.snapshot;
    if (this.#viewOf !== all || this.#viewLock !== lock) {
      const filtered = applyToolFilters(all, this.config.toolFilters);
      const view = lock ? trustedView(filtered, lock, this.#trust!.toolbox, this.name) : { offered: filtered, withheld: [] };
      this.#view = view.offered;
      this.#withheld = view.withheld;
      this.#viewOf = all;
      this.#viewLock = lock;
    }
    return this.#view;
  }

  /** Tools through this toolbox's toolFilters that changed, or are new, since the server's tools were pinned. */
  get withheld(): Withheld[] {
    void this.tools;
    return this.#withheld;
  }

  /**
   * Before the tools are looked at: the lock is read again (unless read less than `maxAgeMs` ago),
   * so that an approval takes effect without a restart, and a connected server's tools seen for
   * the first time are pinned.
   */
  async trust(maxAgeMs = 0): Promise<void> {
    if (!this.#trust) return;
    const { pins, toolbox } = this.#trust;
    await pins.refresh(maxAgeMs);
    const lock = pins.snapshot;
    if (this.connection && lock.error === undefined && !lock.pinsOf(toolbox, this.name)) {
      await pins.pinServer(toolbox, this.name, this.shared.tools);
    }
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
