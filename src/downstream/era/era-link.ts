/**
 * A link that finds out which era its server speaks when the SDK Client sends `initialize`: it
 * probes with `server/discover` (unless the server is remembered as 2025-11-25), then either
 * passes everything through (legacy) or translates through a ModernSession (2026-07-28). The
 * Client, the tools/call lane and the relay above see a 2025-11-25 server either way.
 */
import type { JSONRPCMessage, RequestId, Transport } from "../../protocol/sdk.ts";
import type { ServerConfig } from "../../config/index.ts";
import type { ServerLink } from "../links/link.ts";
import type { SignalSource } from "../../transport/write-queue.ts";
import { NAME, VERSION } from "../../protocol/version.ts";
import { ModernSession } from "./modern-link.ts";
import { maskMessage } from "../../address/mask-message.ts";
import { Probe, probeTimeout } from "./probe.ts";
import { type Era, LEGACY_VERSION, MODERN_VERSION, modernClientCapabilities, UNSUPPORTED_PROTOCOL_VERSION } from "../../protocol/wire.ts";

/** Where the era of each server definition is kept between starts (the listing cache). */
export interface EraMemory {
  eraOf(config: ServerConfig): Promise<Era | undefined>;
  rememberEra(config: ServerConfig, era: Era): void;
}

const CLIENT_INFO = { name: NAME, version: VERSION };

/** A connect that failed because the child exited in silence at the probe: once more, it is initialized without one. */
export class ExitedDuringProbe extends Error {}

export class EraLink implements ServerLink {
  readonly transport: Transport;
  claim?: (message: JSONRPCMessage) => boolean;
  onLost?: (reason: string) => void;
  /** The child exited in silence while it was probed: start it again and initialize without a probe. */
  exitedDuringProbe = false;
  readonly #inner: ServerLink;
  readonly #config: ServerConfig;
  readonly #memory?: EraMemory;
  readonly #front: EraTransport;
  #probe?: Probe;
  #modern?: ModernSession;
  /** The initialize passed through to a server remembered as legacy, in case it now answers -32022. */
  #legacyInitialize?: JSONRPCMessage & { id: RequestId };

  constructor(inner: ServerLink, config: ServerConfig, memory?: EraMemory) {
    this.#inner = inner;
    this.#config = config;
    this.#memory = memory;
    this.#front = new EraTransport(inner.transport, (message) => this.#send(message), () => this.#modern === undefined);
    this.transport = this.#front;
    inner.claim = (message) => this.#take(message);
    inner.onLost = (reason) => {
      this.#probe?.settle({ era: "lost" });
      this.onLost?.(reason);
    };
  }

  /** Which era the server turned out to speak; undefined before initialize. */
  get era(): Era | undefined {
    if (this.#modern) return MODERN_VERSION;
    return this.#decided ? LEGACY_VERSION : undefined;
  }

  #decided = false;

  get sessionExpired(): boolean | undefined {
    return this.#inner.sessionExpired;
  }

  endedWithin(ms: number): Promise<string | undefined> {
    return this.#inner.endedWithin(ms);
  }

  close(options: { graceful: boolean }): Promise<void> {
    return this.#inner.close(options);
  }

  redact(text: string): string {
    return this.#inner.redact(text);
  }

  explain(reason: string): Promise<string> {
    return this.#inner.explain?.(reason) ?? Promise.resolve(reason);
  }

  whenRoom(go: () => void, signal: SignalSource): void {
    if (this.#inner.whenRoom) this.#inner.whenRoom(go, signal);
    else go();
  }

  /** Not for a 2026-07-28 server: its session follows each request to its answer or cancellation. */
  withdraw(id: RequestId): boolean {
    return !this.#modern && (this.#inner.withdraw?.(id) ?? false);
  }

  saidAnything(): Promise<boolean> {
    return this.#inner.saidAnything?.() ?? Promise.resolve(false);
  }

  askedFor(id: RequestId): RequestId | undefined {
    return this.#modern?.askedFor(id) ?? this.#inner.askedFor?.(id);
  }

  #send(message: JSONRPCMessage): Promise<void> {
    if (this.#modern) return this.#modern.outgoing(message);
    if (!this.#decided && "method" in message && message.method === "initialize" && "id" in message) {
      return this.#handshake(message);
    }
    return this.#inner.transport.send(message);
  }

  /** What the server sends passes here first, its secrets masked; false leaves it to the inner transport's onmessage. */
  #take(message: JSONRPCMessage): boolean {
    if (this.#inner.redactor) maskMessage(message, this.#inner.redactor);
    if (this.#probe?.take(message)) return true;
    if (this.#modern?.incoming(message)) return true;
    if (this.#legacyInitialize && this.#refusedLegacy(message)) return true;
    return this.claim?.(message) ?? false;
  }

  /** Delivered as if the inner link had: the lane first, then the Client. */
  #deliver(message: JSONRPCMessage): void {
    if (!this.claim?.(message)) this.#front.onmessage?.(message);
  }

  async #handshake(initialize: JSONRPCMessage & { id: RequestId; method: string }): Promise<void> {
    const remembered = await this.#memory?.eraOf(this.#config);
    if (remembered === LEGACY_VERSION) {
      this.#decided = true;
      this.#legacyInitialize = initialize;
      return this.#inner.transport.send(initialize);
    }
    const outcome = await this.#discover(initialize);
    if (outcome === "modern") return this.#modern!.outgoing(initialize);
    this.#decided = true;
    if (outcome === "lost") {
      if (await this.#inner.endedWithin(0)) {
        // Started once more, for initialize without the probe, only when the probe proved nothing:
        // a child that left in silence may be a strict 2025 server that exits on an unknown
        // method. One that said something on stderr failed to start and said why: started again,
        // it would only say it twice (and repeat whatever starting does).
        this.exitedDuringProbe = !await this.#inner.saidAnything?.();
        // Either way the next start initializes without asking: a strict server that talks at
        // start connects then, and one that fails at start is not probed again.
        this.#memory?.rememberEra(this.#config, LEGACY_VERSION);
      }
      throw new Error(`server left while asked for ${MODERN_VERSION}`);
    }
    // Only an answer proves a 2025 server: one slow to start is asked again next time. Should it
    // refuse initialize (-32022), it is probed again at once.
    if (outcome === "legacy") this.#memory?.rememberEra(this.#config, LEGACY_VERSION);
    this.#legacyInitialize = initialize;
    return this.#inner.transport.send(initialize);
  }

  /** Probes; a modern answer sets up the translation. "unanswered" is a legacy server for now. */
  async #discover(initialize: JSONRPCMessage & { id: RequestId }): Promise<"modern" | "legacy" | "unanswered" | "lost"> {
    const params = (initialize as { params?: { capabilities?: unknown } }).params;
    const envelope = { clientInfo: CLIENT_INFO, clientCapabilities: modernClientCapabilities(params?.capabilities) };
    const probe = this.#probe = new Probe(`era-discover-${crypto.randomUUID()}`);
    const outcome = await probe.run(
      (message) => this.#inner.transport.send(message),
      envelope,
      probeTimeout(this.#config.connectTimeoutMs),
    );
    if (outcome.era === "legacy") return outcome.answered ? "legacy" : "unanswered";
    if (outcome.era !== "modern") return outcome.era;
    this.#memory?.rememberEra(this.#config, MODERN_VERSION);
    this.#modern = new ModernSession(outcome.result, {
      toServer: (message) => this.#inner.transport.send(message),
      toClient: (message) => this.#deliver(message),
      abort: (id) => this.#inner.abortRequest?.(id) ?? false,
      redact: (text) => this.#inner.redact(text),
    }, CLIENT_INFO);
    return "modern";
  }

  /**
   * A server taken for 2025-11-25 (remembered so, or silent at the probe) that refuses it with
   * -32022 naming 2026-07-28 is probed after all; whatever it answers goes to the Client.
   */
  #refusedLegacy(message: JSONRPCMessage): boolean {
    const initialize = this.#legacyInitialize!;
    if ("method" in message || !("id" in message) || message.id !== initialize.id) return false;
    this.#legacyInitialize = undefined;
    if (!("error" in message) || message.error.code !== UNSUPPORTED_PROTOCOL_VERSION) return false;
    // Only a server that names 2026-07-28 among what it speaks is asked: any other refusal stands.
    const supported = (message.error.data as { supported?: unknown } | undefined)?.supported;
    if (!Array.isArray(supported) || !supported.includes(MODERN_VERSION)) return false;
    void this.#discover(initialize).then((outcome) => {
      if (outcome === "modern") return this.#modern!.outgoing(initialize);
      this.#deliver(message);
    });
    return true;
  }
}

/** The transport the SDK Client gets: its messages go through the era link, the server's come back. */
class EraTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onerror?: Transport["onerror"];
  onclose?: Transport["onclose"];
  readonly #inner: Transport;
  readonly #send: (message: JSONRPCMessage) => Promise<void>;
  readonly #legacy: () => boolean;

  constructor(inner: Transport, send: (message: JSONRPCMessage) => Promise<void>, legacy: () => boolean) {
    this.#inner = inner;
    this.#send = send;
    this.#legacy = legacy;
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /** A 2026-07-28 request names its version in its own envelope (and HTTP headers made from it). */
  setProtocolVersion(version: string): void {
    if (this.#legacy()) this.#inner.setProtocolVersion?.(version);
  }
}
