/**
 * One server definition's connection, shared by every toolbox that lists it: started once (one
 * attempt at a time, whoever asks), restarted after a crash with backoff, and stopped when it has
 * had no call for idleTimeoutMs. What it lists is the last list it gave, kept across an idle stop.
 */
import type { CallToolResult, Tool } from "../protocol/sdk.ts";
import { messageOf } from "../protocol/errors.ts";
import { ServerSession } from "../downstream/server-session.ts";
import type { CallOptions, ServerSessionHost } from "../downstream/session-options.ts";
import { type ServerTarget, logPrefix } from "../downstream/links/link.ts";
import { RestartPolicy } from "../downstream/restart-policy.ts";
import type { ServerConfig } from "../config/index.ts";
import { type Lacking, loggedIn, MemberCredentials } from "./start-credentials.ts";
import { EMPTY_LISTING, type ServerListing } from "../downstream/listing.ts";
import { REAL_TIMERS, type Timers } from "../downstream/idle-clock.ts";
import { ExitedDuringProbe } from "../downstream/era/era-link.ts";
import { UriSubscribers } from "./uri-subscribers.ts";
import { SERVER_START, serverAttributes, type Span } from "../telemetry/index.ts";

/** How often drained() looks again. */
const DRAIN_POLL_MS = 20;
/** What a passed-on request's answer is checked against. */
type RequestSchema = Parameters<ServerSession["request"]>[2];

export type Connected = { ok: true; serverSession: ServerSession } | { ok: false; error: string };

export interface SharedServerHost {
  sessionHost: ServerSessionHost;
  /** Every connection made, until closed: shutdown reaches them all. */
  live: Set<ServerSession>;
  /** The workbench is shutting down, or no session uses the server any more: no new connection. */
  closed(): boolean;
  /** A list of tools came (on connect, or after the server said they changed). */
  onListed?(server: SharedServer): void;
  /** Prompts or resources were listed (on connect, or after the server said they changed). */
  onListingChanged?(server: SharedServer): void;
  /** The server said a subscribed resource changed. */
  onResourceUpdated?(server: SharedServer, uri: string): void;
  timers?: Timers;
  /** For a member's server that lacks a secret: the server with what the member provided since (read anew at each start). */
  provide?(): Promise<ServerConfig>;
}

export class SharedServer {
  /** The first toolbox and server (in configuration order) that name it, and the settings all share. */
  target: ServerTarget;
  /** What its member gave since it was made (a secret, a login of their own): read at each start. */
  readonly #credentials: MemberCredentials;
  serverSession?: ServerSession;
  /** Why there is no connection, for messages; unset after an idle stop. */
  error?: string;
  readonly restarts = new RestartPolicy();
  /** How long the last attempt took, in whole milliseconds. */
  startMs?: number;
  readonly #host: SharedServerHost;
  readonly #timers: Timers;
  #connecting?: Promise<void>;
  #inFlight = 0;
  #idleTimer?: unknown;
  #lastTools: Tool[] = [];
  /** It connected (and listed) once: a later failure is a failed restart, not a failed start. */
  #started = false;
  #lastListing: ServerListing = EMPTY_LISTING;
  /** URIs subscribed to here, and by whom (each session's registry): while there are any, the idle clock does not run. */
  readonly subscriptions = new UriSubscribers();

  constructor(target: ServerTarget, host: SharedServerHost) {
    this.target = target;
    this.#credentials = new MemberCredentials(target, host.provide, host.sessionHost.vault !== undefined);
    this.#host = host;
    this.#timers = host.timers ?? REAL_TIMERS;
  }

  /** An attempt to connect is under way (a first start, or a restart). */
  get starting(): boolean {
    return this.#connecting !== undefined;
  }

  get live(): boolean {
    return this.serverSession !== undefined && this.serverSession.lostReason === undefined;
  }

  /** The last tools the server listed (none before it first connected). */
  get tools(): Tool[] {
    return this.serverSession?.tools ?? this.#lastTools;
  }

  /** The last prompts, resources and templates the server listed; undefined before it first connected. */
  get listing(): ServerListing | undefined {
    return this.serverSession?.listing ?? (this.#started ? this.#lastListing : undefined);
  }

  /** Passes a request on (prompts/get, resources/read...); the idle clock waits for it like for a call. */
  request<T>(serverSession: ServerSession, method: string, params: Record<string, unknown>, schema: RequestSchema): Promise<T> {
    return this.#busy(() => serverSession.request<T>(method, params, schema));
  }


  /** One attempt at a time: a concurrent caller waits for the same attempt (traced under the first one's `parent`). */
  connect(parent?: Span): Promise<void> {
    this.#connecting ??= this.#attempt(parent).finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  /**
   * The connection, restarted first if it was lost: the first restart after a crash is immediate,
   * later ones wait out the backoff (the wait ends early if the call is cancelled). A server
   * stopped for being idle starts again at once.
   */
  async connected(signal?: AbortSignal, parent?: Span): Promise<Connected> {
    const live = this.liveSession();
    if (live) return live;
    const lost = this.serverSession;
    if (lost?.lostReason) {
      // Counted once, here, synchronously: concurrent callers then see no connection at all.
      this.serverSession = undefined;
      this.error = lost.lostReason;
      this.restarts.failed(lost.lostReason);
      void this.#release(lost);
    }
    if (this.restarts.givenUp) {
      const { failures, lastReason } = this.restarts;
      return {
        ok: false,
        error: `server is down after ${failures} failures in a row (last: ${lastReason}); call open_toolbox to start it again`,
      };
    }
    await this.restarts.waitForTurn(signal);
    if (signal?.aborted) return { ok: false, error: "cancelled by the client" };
    await this.connect(parent);
    if (this.serverSession) return { ok: true, serverSession: this.serverSession };
    return { ok: false, error: `${this.#started ? "restart failed" : "failed to start"}: ${this.error}` };
  }

  /** The connection when it is up, without waiting for anything (issue 42); undefined otherwise: ask `connected`. */
  liveSession(): Connected | undefined {
    if (!this.live) return undefined;
    // The call comes next: the idle clock starts over, so that it cannot stop the server first.
    this.#arm();
    return { ok: true, serverSession: this.serverSession! };
  }

  /** Calls a tool; while any call is in flight the idle clock does not run. */
  call(serverSession: ServerSession, name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    return this.#busy(async () => {
      const result = await serverSession.callTool(name, args, options);
      this.restarts.succeeded();
      return result;
    });
  }

  /** Runs `work` with the idle clock stopped: a call or a request in flight keeps the server up. */
  async #busy<T>(work: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    this.#disarm();
    try {
      return await work();
    } finally {
      this.#inFlight--;
      this.#arm();
    }
  }

  /** What its member lacks for it to start (see MemberCredentials); nothing while it runs. */
  lacking(): Promise<Lacking | undefined> {
    return this.live ? Promise.resolve(undefined) : this.#credentials.lacking(this.target.config);
  }

  /** Used without a call (its toolbox was opened again): the idle clock starts over. */
  touch(): void {
    this.#arm();
  }

  /**
   * Waits until no call or request is in flight here, for at most `ms` (polled: it happens only
   * when the configuration drops the server); true when they all finished.
   */
  async drained(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.#inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    return this.#inFlight === 0;
  }

  /** Stops the idle clock and closes the connection (for shutdown). */
  async close(graceful = true): Promise<void> {
    this.#disarm();
    const serverSession = this.serverSession;
    if (serverSession) await this.#release(serverSession, graceful);
  }

  async #attempt(parent: Span | undefined): Promise<void> {
    if (this.live) return;
    const previous = this.serverSession;
    this.serverSession = undefined;
    if (previous) void this.#release(previous);
    if (this.#host.closed()) {
      this.error = "the workbench is shutting down";
      return;
    }
    // A secret the member lacked may have been provided since (or forgotten: a start never keeps one).
    this.target = await this.#credentials.target();
    // An unset variable in it: the server fails alone, never started with the reference in place.
    const { unconfigured, missingSecret } = this.target.config;
    if (unconfigured !== undefined) {
      this.error = unconfigured;
      // A secret a member may still provide is no crash to back off from.
      if (missingSecret === undefined) this.restarts.failed(unconfigured);
      this.startMs = 0;
      return;
    }
    const started = performance.now();
    // Under the request that asked for it; a start nobody asked for (a listing in the background) is a trace of its own.
    const about = serverAttributes(this.target.toolbox, this.target.server);
    const telemetry = this.#host.sessionHost.telemetry;
    const span = parent ? parent.child(SERVER_START, about) : telemetry?.internalSpan(SERVER_START, undefined, about);
    const failed = await this.#connectOnce(span);
    // A server that needs a login gets one in the client when it can show a URL; then it connects.
    // A child that exited in silence when asked server/discover (a strict 2025 server?) starts again, to be initialized.
    const again = failed &&
      (failed instanceof ExitedDuringProbe || await loggedIn(failed, this.target, this.#host.sessionHost, this.#host.closed));
    const error = again ? await this.#connectOnce(span) : failed;
    this.#credentials.started(error);
    if (error) {
      this.error = messageOf(error);
      this.restarts.failed(this.error);
      span?.fail(error);
    } else span?.end();
    this.startMs = Math.round(performance.now() - started);
  }

  /** Connects; gives the error if it failed. */
  async #connectOnce(span: Span | undefined): Promise<unknown> {
    let serverSession: ServerSession | undefined;
    try {
      serverSession = ServerSession.open(this.target, this.#host.sessionHost);
      this.#host.live.add(serverSession);
      await serverSession.connect(span);
      // Stopped meanwhile (shutdown, or its last session left): nobody is waiting for it.
      if (this.#host.closed()) {
        void this.#release(serverSession);
        return new Error("the workbench is shutting down");
      }
      this.serverSession = serverSession;
      this.#started = true;
      this.error = undefined;
      serverSession.onToolsChanged = () => this.#listed();
      serverSession.onListingChanged = () => this.#listingChanged();
      serverSession.onResourceUpdated = (uri) => this.#host.onResourceUpdated?.(this, uri);
      this.#listed();
      this.#listingChanged();
      this.#arm();
      return undefined;
    } catch (error) {
      if (serverSession) this.#host.live.delete(serverSession);
      return error;
    }
  }

  #listed(): void {
    if (this.serverSession) this.#lastTools = this.serverSession.tools;
    this.#host.onListed?.(this);
  }

  #listingChanged(): void {
    if (!this.serverSession) return;
    this.#lastListing = this.serverSession.listing;
    this.#host.onListingChanged?.(this);
  }

  #arm(): void {
    this.#disarm();
    const { idleTimeoutMs } = this.target.config;
    if (idleTimeoutMs === 0 || this.#inFlight > 0 || this.subscriptions.size > 0 || !this.live) return;
    this.#idleTimer = this.#timers.set(() => this.#idleStop(), idleTimeoutMs);
  }

  #disarm(): void {
    if (this.#idleTimer === undefined) return;
    this.#timers.clear(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  /** Closed the normal way (stdin, SIGTERM, SIGKILL); not a failure, so no backoff. */
  #idleStop(): void {
    this.#idleTimer = undefined;
    const serverSession = this.serverSession;
    if (this.#inFlight > 0 || this.#connecting || !serverSession || serverSession.lostReason) return;
    this.serverSession = undefined;
    const { config } = this.target;
    const stopped = `stopped after ${config.idleTimeoutMs} ms without a call (idleTimeoutMs)`;
    this.#host.sessionHost.writeStderr(`${logPrefix(this.target)} ${stopped}\n`);
    void this.#release(serverSession);
  }

  async #release(serverSession: ServerSession, graceful = true): Promise<void> {
    await serverSession.close({ graceful }).catch(() => {});
    this.#host.live.delete(serverSession);
  }
}
