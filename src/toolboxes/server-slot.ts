/**
 * A server as one toolbox sees it: its name there, its offer (toolFilters and pins, see offer.ts),
 * its call limits, over the connection that the pool shares among toolboxes and sessions.
 */
import type { ServerConfig } from "../config/index.ts";
import type { Tool } from "../protocol/sdk.ts";
import type { ServerSession } from "../downstream/server-session.ts";
import type { RestartPolicy } from "../downstream/restart-policy.ts";
import type { ServerListing } from "../downstream/listing.ts";
import type { SharedServer } from "./shared-server.ts";
import type { LockSnapshot, PinPlace, PinStore } from "./pin-store.ts";
import { definitionDigest } from "./lock-format.ts";
import type { ApproveWith, Withheld } from "./withheld.ts";
import { type Listed, type Offer, offerOf, type OfferPins, textPins } from "./offer.ts";
import type { CallTarget } from "./call-target.ts";

/** Where a slot's pins are: its toolbox's name in the lock, the lock, and the other names of its definition. */
export interface SlotTrust {
  toolbox: string;
  pins: PinStore;
  /** The same server definition in other toolboxes (pinned ones): its pins are theirs too. */
  same: PinPlace[];
  /** The client whose own process this is, when what it lists may be that client's alone (${WORKBENCH_CLIENT}): `approve --client`. */
  approveAs?: string;
}

/** A server as one toolbox sees it: its name there, and its offer (filters and pins) over the shared connection. */
export class ServerSlot {
  readonly name: string;
  readonly config: ServerConfig;
  readonly shared: SharedServer;
  readonly #trust?: SlotTrust;
  #offerOf?: [Tool[], ServerListing | undefined, string | undefined, LockSnapshot | undefined];
  #offer!: Offer;

  constructor(name: string, config: ServerConfig, shared: SharedServer, trust?: SlotTrust) {
    this.name = name;
    this.config = config;
    this.shared = shared;
    this.#trust = trust;
  }

  get serverSession(): ServerSession | undefined {
    return this.shared.serverSession;
  }

  /** Not connected yet, and starting: it joins its open toolbox when it answers. */
  get starting(): boolean {
    return this.shared.serverSession === undefined && this.shared.starting;
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

  /** What the server offers this toolbox now, as last listed (see offer.ts); made again when the listing or the lock changed. */
  get offer(): Offer {
    const { tools, listing } = this.shared;
    const instructions = this.shared.serverSession?.instructions;
    const lock = this.#trust?.pins.snapshot;
    const made = this.#offerOf;
    if (!made || made[0] !== tools || made[1] !== listing || made[2] !== instructions || made[3] !== lock) {
      this.#offer = offerOf({ tools, listing, instructions }, this.config.toolFilters, this.#pinsAt(lock));
      this.#offerOf = [tools, listing, instructions, lock];
    }
    return this.#offer;
  }

  /**
   * The same rule for what the listing cache kept of the server (its process is not running). The
   * last one is kept while the lists and the lock are the same objects: search asks at every query,
   * and a cached listing's texts would be hashed again each time.
   */
  offerOf(listed: Listed): Offer {
    const lock = this.#trust?.pins.snapshot;
    const last = this.#cachedOffer;
    if (
      last && last.tools === listed.tools && last.listing === listed.listing && last.instructions === listed.instructions &&
      last.lock === lock
    ) {
      return last.offer;
    }
    const offer = offerOf(listed, this.config.toolFilters, this.#pinsAt(lock));
    this.#cachedOffer = { ...listed, lock, offer };
    return offer;
  }
  #cachedOffer?: Listed & { lock: LockSnapshot | undefined; offer: Offer };

  #pinsAt(lock: LockSnapshot | undefined): OfferPins | undefined {
    return lock &&
      { lock, toolbox: this.#trust!.toolbox, server: this.name, same: this.#trust!.same, definition: definitionDigest(this.config) };
  }

  /** What `approve` must be told: the client to start the server as (see SlotTrust), the configuration file. */
  get approveWith(): ApproveWith {
    const trust = this.#trust;
    const config = trust?.pins.configFile;
    return { ...(trust?.approveAs !== undefined && { client: trust.approveAs }), ...(config !== undefined && { config }) };
  }

  /** The server's tools offered to this toolbox. */
  get tools(): Tool[] {
    return this.offer.tools;
  }

  /** Tools through this toolbox's toolFilters that changed, or are new, since the server's tools were pinned. */
  get withheld(): Withheld[] {
    return this.offer.withheld;
  }

  /** Prompts, resources, templates and instructions withheld. */
  get withheldTexts(): Withheld[] {
    return this.offer.withheldTexts;
  }

  /** The prompts, resources and templates offered; undefined before the server first listed them. */
  get listing(): ServerListing | undefined {
    return this.offer.listing;
  }

  /** What the server said about using it when it initialized, if anything and if offered. */
  get instructions(): string | undefined {
    return this.offer.instructions;
  }

  /** The lock as last read, for offers made from the listing cache; read first when it never was. */
  async lockRead(maxAgeMs = 0): Promise<void> {
    await this.#trust?.pins.refresh(maxAgeMs);
  }

  /**
   * Before the tools are looked at: the lock is read again (unless read less than `maxAgeMs` ago),
   * so that an approval takes effect without a restart, and a connected server's tools and texts
   * seen for the first time are pinned (as another toolbox pinned the same definition, if one did).
   */
  async trust(maxAgeMs = 0): Promise<void> {
    if (!this.#trust) return;
    const { pins, toolbox, same } = this.#trust;
    await pins.refresh(maxAgeMs);
    const lock = pins.snapshot;
    if (!this.serverSession || lock.error !== undefined) return;
    const listed = { tools: this.shared.tools, listing: this.shared.listing, instructions: this.serverSession.instructions };
    // Fingerprints are made only at a first sight: a call of a pinned server pays a look-up, not a hash of its texts.
    const textsNew = this.#textsNew(lock);
    // The definition is recorded with the pins, once (approve records it again): pins follow a rename.
    const definition = definitionDigest(this.config);
    if (this.#unpinned(lock, textsNew)) {
      await pins.pinServer(toolbox, this.name, this.shared.tools, textsNew ? textPins(listed) : undefined, same, definition);
    }
    const firstSeen = this.offer.firstSeen;
    if (firstSeen) await pins.addPins(toolbox, this.name, firstSeen);
  }

  /**
   * True when `trust(maxAgeMs)` would find nothing to do now: the lock read less than `maxAgeMs`
   * ago, and the server pinned, its texts and definition recorded, no tool seen for the first time.
   * A call then does not wait for it (issue 42); any other call does.
   */
  trusted(maxAgeMs: number): boolean {
    if (!this.#trust) return true;
    if (!this.#trust.pins.fresh(maxAgeMs)) return false;
    const lock = this.#trust.pins.snapshot;
    if (!this.serverSession || lock.error !== undefined) return true;
    return !this.#unpinned(lock) && this.offer.firstSeen === undefined;
  }

  #textsNew(lock: LockSnapshot): boolean {
    return this.shared.listing !== undefined && !lock.textsOf(this.#trust!.toolbox, this.name);
  }

  #unpinned(lock: LockSnapshot, textsNew = this.#textsNew(lock)): boolean {
    const toolbox = this.#trust!.toolbox;
    return !lock.pinsOf(toolbox, this.name) || textsNew || lock.definitionOf(toolbox, this.name) === undefined;
  }

  /** The slot bound to the server session a call goes to: calls with this toolbox's call limits. */
  on(serverSession: ServerSession): CallTarget {
    const { config, shared } = this;
    const limits = { callTimeoutMs: config.callTimeoutMs, maxCallTimeMs: config.maxCallTimeMs };
    return {
      config,
      call(name, args, options) {
        const { signal, cancel, onProgress, relatedRequestId, upstream, input, meta } = options;
        // A literal, not a spread of the options: one call each, on every call's way (issue 42).
        return shared.call(serverSession, name, args, { signal, cancel, onProgress, relatedRequestId, upstream, input, meta, limits });
      },
    };
  }
}
