/**
 * A server session: one downstream server's SDK Client over a link (a child process or a URL),
 * the tools/call lane, timeouts, progress, cancellation, and what happens when the link is lost.
 * (The class keeps its older name, ServerSession.)
 */
import { type CallToolResult, Client, type ClientCapabilities, type Tool } from "../protocol/sdk.ts";
import type { Span } from "../telemetry/index.ts";
import { NAME, VERSION } from "../protocol/version.ts";
import { messageOf } from "../protocol/errors.ts";
import { MODERN_VERSION } from "../protocol/wire.ts";
import { lazySchemaValidator } from "../protocol/schema-validator.ts";
import { NOT_JSON, RefusedMessage } from "../transport/stream-transport.ts";
import { MAX_JSON_DEPTH } from "../transport/json-depth.ts";
import { EMPTY_LISTING, listServerListing, listTools, type ServerListing } from "./listing.ts";
import { type CallInFlight, ToolCallLane } from "./call-lane.ts";
import { callAsTask, requiresTask } from "./task-call.ts";
import { type ListingOwner, listingOwnerOf, ListingWatch } from "./listing-watch.ts";
import { DownstreamRelay } from "./relay.ts";
import type { ServerCalls } from "./question-owner.ts";
import type { CallLimits, CallOptions, ServerSessionHost } from "./session-options.ts";
import { explainFailure, explainStartFailure } from "./call-failure.ts";
import { openLinks } from "./open-link.ts";
import { EraLink, ExitedDuringProbe } from "./era/era-link.ts";
import { type ServerTarget, logPrefix, type ServerLink } from "./links/link.ts";
import { sendOrAnswer, SessionExpired } from "./links/link-errors.ts";
import { tracedRequests } from "./traced-requests.ts";

export class ServerSession {
  readonly target: ServerTarget;
  /** Every tool the server lists, as it lists them: toolFilters are each toolbox's own view. */
  tools: Tool[] = [];
  /** What the server's initialize result says about using it, if anything. */
  instructions?: string;
  /** The server changed its tools (notifications/tools/list_changed) and they were listed again. */
  onToolsChanged?: () => void;
  /** Prompts, resources and resource templates, as last listed (empty when not declared). */
  listing: ServerListing = EMPTY_LISTING;
  /** The server changed its prompts or resources and they were listed again. */
  onListingChanged?: () => void;
  /** notifications/resources/updated from the server, for a subscribed URI. */
  onResourceUpdated?: (uri: string) => void;
  /** Set once the server session is lost; the reason says why. */
  lostReason?: string;
  /** What our Client declared to the server: some servers list tools by it. */
  declared: ClientCapabilities = {};
  readonly #host: ServerSessionHost;
  readonly #openLink: () => ServerLink | Promise<ServerLink>;
  /** Set at once for a child (spawned by `open`), on connect for a remote server. */
  #link!: ServerLink;
  #firstLink?: Promise<ServerLink>;
  /** Why the link itself ended, as it said (a crash, a network failure). */
  #linkLost?: string;
  #client!: Client;
  #lane?: ToolCallLane;
  /** The calls run as tasks, in flight: the requests of a task are its call's. */
  readonly #taskCalls = new Set<CallInFlight>();
  #relay?: DownstreamRelay;
  #closing?: Promise<void>;
  #renewing?: Promise<void>; // a new session after the server forgot ours, shared by the calls that found out
  #watch?: ListingWatch; // lists again when the server says its lists changed
  /** It initialized: closed before that, it has no work to finish and is not waited for. */
  #started = false;
  /** The first line the server wrote on stdout that is not JSON (a usage line): the clue of a start that never answers. */
  #notJson?: string;
  /** While it connects: the span its requests go under. */
  #scope?: Span;

  private constructor(target: ServerTarget, host: ServerSessionHost, openLink: () => ServerLink | Promise<ServerLink>) {
    this.target = target;
    this.#host = host;
    this.#openLink = openLink;
    const link = openLink();
    if (link instanceof Promise) this.#firstLink = link;
    else this.#link = this.#attach(link);
  }

  /** Spawns a stdio server (throws if it cannot start) or prepares a remote one. */
  static open(target: ServerTarget, host: ServerSessionHost): ServerSession {
    return new ServerSession(target, host, openLinks(target, host));
  }

  /**
   * Initializes the session and lists its tools; rejects with a short reason on failure. With
   * telemetry on, its requests are CLIENT spans under `span` (the server's start).
   */
  async connect(span?: Span): Promise<void> {
    this.#scope = span;
    const { connectTimeoutMs } = this.target.config;
    if (this.#firstLink) this.#link = this.#attach(await this.#firstLink);
    this.#firstLink = undefined;
    const link = this.#link;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`connection timeout after ${connectTimeoutMs} ms (connectTimeoutMs)`));
      }, connectTimeoutMs);
    });
    try {
      await Promise.race([this.#initialize(connectTimeoutMs), timeout]);
      this.#started = true;
    } catch (error) {
      const explained = await explainStartFailure(error, link, { timedOut, linkLost: this.#linkLost, notJson: this.#notJson });
      await this.close({ graceful: false });
      const Failure = link instanceof EraLink && link.exitedDuringProbe ? ExitedDuringProbe : Error;
      throw new Failure(explained, { cause: error });
    } finally {
      clearTimeout(timer);
      this.#scope = undefined;
    }
  }

  /** A fresh SDK Client and tools/call lane on the link. */
  #attach(link: ServerLink): ServerLink {
    this.#relay?.dispose();
    const taskCalls = this.#taskCalls;
    const relay = this.#relayFor({ inFlight: () => [...lane.inFlight(), ...taskCalls], askedFor: (id) => link.askedFor?.(id) });
    const capabilities = this.declared = relay?.capabilities ?? {};
    const client = new Client({ name: NAME, version: VERSION }, { capabilities, jsonSchemaValidator: lazySchemaValidator });
    relay?.handle(client);
    const lane: ToolCallLane = new ToolCallLane((message) => sendOrAnswer(link, message, (answer) => lane.claim(answer)), undefined, link);
    link.claim = (message) => lane.claim(message);
    link.onLost = (reason) => {
      if (this.#link !== link) return;
      this.#linkLost = reason;
      this.lostReason ??= reason;
      lane.close();
      relay?.dispose();
      void client.close().catch(() => {});
    };
    this.#notJson = undefined;
    link.transport.onerror = (error) => {
      this.#log(link.redact(error.message));
      if (error.message.startsWith(NOT_JSON)) this.#notJson ??= link.redact(error.message.slice(NOT_JSON.length));
      if (error instanceof RefusedMessage && error.tooDeep) {
        this.#break(`server sent a message nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    };
    this.#client = client;
    this.#lane = lane;
    this.#relay = relay;
    this.#linkLost = undefined;
    return link;
  }

  /** What the client in front of us lets this server ask and tell it, if a client is there. */
  #relayFor(calls: ServerCalls): DownstreamRelay | undefined {
    const upstream = this.#host.upstream;
    if (!upstream) return undefined;
    const { toolbox, server, config } = this.target;
    const target = { toolbox, server, roots: config.roots, requestTimeoutMs: config.maxCallTimeMs };
    return new DownstreamRelay(upstream, target, calls, (text) => this.#log(text));
  }

  /**
   * The SDK's own request timeout (60 s by default) would cut a longer connectTimeoutMs short, so
   * each request gets the connect timeout.
   */
  async #initialize(timeout: number): Promise<void> {
    const client = this.#client;
    client.onclose = () => {
      if (this.#client !== client) return;
      this.lostReason ??= "connection closed";
      this.#lane?.close();
    };
    this.#watch = new ListingWatch(client, this.#listingOwner());
    await client.connect(tracedRequests(this.#link.transport, this.#host.telemetry, this.target, () => this.#scope), { timeout });
    this.#relay?.connected(client);
    this.instructions = client.getInstructions() || undefined;
    this.tools = await listTools(client, timeout);
    this.listing = await listServerListing(client, timeout, (text) => this.#log(this.#link.redact(text)));
  }

  /** What the watch of the current Client may see and set. */
  #listingOwner(): ListingOwner {
    return listingOwnerOf(this, (client) => this.#client === client, (text) => this.#log(this.#link.redact(text)));
  }

  /**
   * A request passed on as the client made it (prompts/get, resources/read, completion/complete,
   * resources/subscribe): the server's answer, or its error, comes back as it gave it.
   */
  request<T>(method: string, params: Record<string, unknown>, schema: Parameters<Client["request"]>[1]): Promise<T> {
    if (this.lostReason) return Promise.reject(new Error(this.lostReason));
    const { callTimeoutMs, maxCallTimeMs } = this.target.config;
    const options = { timeout: callTimeoutMs, resetTimeoutOnProgress: true, maxTotalTimeout: maxCallTimeMs || undefined };
    return this.#client.request({ method, params }, schema, options) as Promise<T>;
  }

  /** Resolves once the tools are listed as the server last said they changed. */
  toolsSettled(): Promise<void> {
    return this.#watch?.settled() ?? Promise.resolve();
  }

  /**
   * Calls a tool and returns its result as the server gave it. Progress from the server resets the
   * call timeout (callTimeoutMs); maxCallTimeMs caps the call whatever the progress. A remote
   * server that forgot our session is initialized again, once, and the call sent again. Not async:
   * an answered call takes no step here (issue 42).
   */
  callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const link = this.#link;
    return this.#call(name, args, options).catch((error) => this.#failed(error, link, name, args, options));
  }

  async #failed(
    error: unknown,
    link: ServerLink,
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    if (link.sessionExpired && !this.#closing && !(options.cancel ?? options.signal)?.aborted) {
      try {
        await this.#renew(link);
      } catch (renewError) {
        throw new Error(`${new SessionExpired().message}; initializing again failed: ${messageOf(renewError)}`);
      }
      return await this.#call(name, args, options).catch(async (retryError) => {
        throw new Error(this.#link.redact(await this.#explain(retryError, options.limits ?? this.target.config)), { cause: retryError });
      });
    }
    throw new Error(link.redact(await this.#explain(error, options.limits ?? this.target.config)), { cause: error });
  }

  #call(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    if (this.lostReason || !this.#lane) return Promise.reject(new Error(this.lostReason ?? "not connected"));
    const { callTimeoutMs, maxCallTimeMs } = options.limits ?? this.target.config;
    const call = {
      name,
      arguments: args,
      idleTimeoutMs: callTimeoutMs,
      maxTimeMs: maxCallTimeMs,
      signal: options.signal, cancel: options.cancel,
      onProgress: options.onProgress,
      relatedRequestId: options.relatedRequestId,
      upstream: options.upstream, meta: options.meta,
      // Only a 2026-07-28 server has input requests: a 2025 one never sees these fields.
      input: this.#link instanceof EraLink && this.#link.era === MODERN_VERSION ? options.input : undefined,
    };
    if (requiresTask(this.tools.find((tool) => tool.name === name))) {
      return callAsTask(this.#client, { ...call, signal: options.signal ?? options.cancel?.signal }, undefined, this.#taskCalls);
    }
    return this.#lane.call(call);
  }

  /** Drops the expired session and initializes a new one on a new link. */
  #renew(expired: ServerLink): Promise<void> {
    if (this.#link !== expired) return this.#renewing ?? Promise.resolve();
    this.#renewing ??= (async () => {
      this.#log("session expired; initializing again");
      const linkClosed = expired.close({ graceful: false }).catch(() => {});
      await this.#client.close().catch(() => {});
      await linkClosed;
      this.#link = this.#attach(await this.#openLink());
      this.lostReason = undefined;
      await this.connect();
    })().finally(() => (this.#renewing = undefined));
    return this.#renewing;
  }

  #explain(error: unknown, limits: CallLimits): Promise<string> {
    return explainFailure(error, limits, { link: this.#link, closing: this.#closing !== undefined, lostReason: this.lostReason });
  }

  /** Ends the session and the link: a child gets its stdin closed, then SIGTERM and SIGKILL. */
  close({ graceful = true } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(graceful);
    return this.#closing;
  }

  async #shutdown(graceful: boolean): Promise<void> {
    this.lostReason ??= "connection closed";
    this.#lane?.close();
    this.#relay?.dispose();
    // The link first: it must know a close is coming before the child leaves. One still being
    // opened (a command looked for on the login shell's PATH) is closed once it is there.
    const link = this.#link ?? await this.#firstLink?.catch(() => undefined);
    const linkClosed = link?.close({ graceful: graceful && this.#started });
    await this.#client?.close().catch(() => {});
    await linkClosed;
  }

  /**
   * The server sent what we cannot read (a message nested deeper than any parser here can walk):
   * what it says next cannot be trusted either. Pending calls fail now with the reason; the next
   * call starts the server again, as after a crash.
   */
  #break(reason: string): void {
    if (this.lostReason) return;
    this.lostReason = reason;
    void this.close({ graceful: false });
  }

  #log(text: string): void {
    this.#host.writeStderr(`${logPrefix(this.target)} ${text}\n`);
  }
}
