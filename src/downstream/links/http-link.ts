/**
 * A server reached at a URL, over the SDK's fetch-based client transports: Streamable HTTP, or
 * the older HTTP+SSE. A url without a type tries Streamable HTTP and falls back to SSE when the
 * server answers the first POST with 400, 404 or 405 without a JSON-RPC error in the body, as the
 * MCP specification describes.
 */
import type { FetchLike, JSONRPCMessage, RequestId, Transport } from "../../protocol/sdk.ts";
import { type OAuthClientProvider, SSEClientTransport, StreamableHTTPClientTransport } from "../../protocol/sdk-remote.ts";
import { isNetworkFailure, isStatus, type JsonRpcErrorBody, jsonRpcErrorOf } from "./http-errors.ts";
import { MessageRefused, SessionExpired } from "./link-errors.ts";
import { requestTarget } from "../../address/request-target.ts";
import { refusalOf } from "./link-refusal.ts";
import type { RemoteServerConfig } from "../../config/index.ts";
import type { ServerLink } from "./link.ts";
import { messageOf } from "../../protocol/errors.ts";
import { displayUrl, type Redactor } from "../../address/redact.ts";
import { type LinkRedactors, linkRedactors } from "./link-redactors.ts";
import type { FlowGate } from "../../transport/flow-gate.ts";
import { boundedFetch } from "./bounded-fetch.ts";
import { withServerHeaders } from "../../address/server-headers.ts";
import { type RecheckedLogin, recheckingFetch } from "../../auth/token-recheck.ts";
import { type ExchangedToken, exchangingFetch } from "../../auth/token-exchange.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../../transport/json-depth.ts";
import { withEraHeaders } from "./era-headers.ts";
import { withTraceHeaders } from "./trace-headers.ts";
import { dumpMeaning } from "../../auth/oauth-failure.ts";
import { StreamOwners } from "./stream-owners.ts";
import type { ByteRoom, SignalSource } from "../../transport/byte-room.ts";
import { jsonLength } from "../../transport/json-size.ts";

/** What the first POST of a Streamable HTTP attempt answers when the server speaks only SSE. */
const FALLBACK_STATUSES = new Set([400, 404, 405]);
/** How long a DELETE of the session may hold up a close. */
const TERMINATE_MS = 1_000;

export interface HttpLinkOptions {
  config: RemoteServerConfig;
  /** Reading responses waits while this is held: the client is not taking what we send. */
  readGate?: FlowGate;
  /** For servers that need OAuth; none means a 401 is an error like any other. */
  authProvider?: OAuthClientProvider & RecheckedLogin;
  /** Each member's own token for the server (auth.tokenExchange), sent on every request instead of a login. */
  exchange?: ExchangedToken;
  /** Where what we send the server counts until its POST is answered (issue 38); none: no bound. */
  room?: ByteRoom;
  /** Tracing on: a request's trace context goes in its HTTP headers too (off, a client's own `_meta` is never turned into headers). */
  traceHeaders?: boolean;
  log(text: string): void;
}

export class HttpLink implements ServerLink, Transport {
  claim?: (message: JSONRPCMessage) => boolean;
  onLost?: (reason: string) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #options: HttpLinkOptions;
  #redactors: LinkRedactors;
  /** A password in the URL; the member's exchanged token masked last (the newest only: the older ones expired). */
  readonly #basic: string[];
  #masked?: string;
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  #inner: StreamableHTTPClientTransport | SSEClientTransport;
  /** A url without type may still fall back to SSE until a POST has succeeded. */
  #mayFallBack: boolean;
  #lostReason?: string;
  sessionExpired = false;
  /** The server answered 401: the SDK's errors from here may be its OAuth discovery's. */
  #challenged = false;
  /** The POST of each 2026-07-28 request still unanswered: ending it is how such a request is cancelled. */
  readonly #posts = new Map<RequestId, AbortController>();
  /** Which of our requests each server request came within (the stream it came on). */
  readonly #owners = new StreamOwners();

  constructor(options: HttpLinkOptions) {
    this.#options = options;
    const { url, headers, basic } = requestTarget(options.config);
    this.#url = url;
    this.#headers = headers;
    // A member's values (${client:NAME}) are masked wherever they appear, in the URL's path too.
    this.#basic = basic ? [basic] : [];
    this.#redactors = linkRedactors(options.config, this.#basic);
    const { transport } = options.config;
    this.#mayFallBack = transport === "auto";
    this.#inner = this.#create(transport === "sse" ? "sse" : "http");
  }

  get transport(): Transport {
    return this;
  }

  get sessionId(): string | undefined {
    return sessionOf(this.#inner);
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    try {
      await this.#inner.start();
    } catch (error) {
      const refused = this.#refusal(error);
      throw refused ? new MessageRefused(refused, { cause: error }) : error;
    }
  }

  /** A 401 or 403 to the credentials the configuration sends, in words (see link-refusal.ts). */
  #refusal(error: unknown): string | undefined {
    return refusalOf(error, this.#options.config, (text) => this.redact(text));
  }

  /**
   * Errors that end the link are reported through onLost (a network failure, an expired session)
   * and thrown; an HTTP error for one message is thrown for that message alone. The message counts
   * in the server's room, by its length as JSON, from now (not async: a sender given its turn takes
   * its bytes at once) until the server has answered its POST, which it does once it has read the
   * body: its headers, for a stream of events; its whole body, for a JSON answer.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const room = this.#options.room;
    if (!room) return this.#send(message);
    const bytes = jsonLength(message);
    room.take(bytes);
    return this.#send(message).finally(() => room.give(bytes));
  }

  /** Past the bound, a tool call waits its turn in the server's room (see send). */
  whenRoom(go: () => void, signal: SignalSource): void {
    const room = this.#options.room;
    if (room) room.whenRoom(go, signal);
    else go();
  }

  async #send(message: JSONRPCMessage): Promise<void> {
    const sessionBefore = sessionOf(this.#inner);
    try {
      await this.#inner.send(message);
      this.#mayFallBack = false;
    } catch (error) {
      if ("id" in message && message.id !== undefined) this.#posts.delete(message.id);
      // A JSON-RPC error in the body is the server's answer (an unsupported protocol version), not a sign of SSE.
      const answer = jsonRpcErrorOf(error);
      if (this.#mayFallBack && isStatus(error, FALLBACK_STATUSES) && !answer) {
        this.#mayFallBack = false;
        this.#options.log("no Streamable HTTP here (the first POST failed); trying SSE");
        const tried = this.#inner;
        this.#inner = this.#create("sse");
        await tried.close().catch(() => {});
        await this.#inner.start();
        return this.#send(message);
      }
      if (sessionBefore !== undefined && isStatus(error, new Set([404]))) {
        this.sessionExpired = true;
        this.#lose(new SessionExpired().message);
        throw new SessionExpired();
      }
      if (isNetworkFailure(error)) {
        // Which server: a toolbox may list several, and the URL may come from an environment variable.
        this.#lose(this.redact(`cannot reach the server at ${displayUrl(this.#url.href)}: ${messageOf(error)}`));
        throw error;
      }
      // After a 401 the SDK went down the OAuth path: what it could not parse there is said plainly.
      const refused = this.#refusal(error) ?? (this.#challenged ? dumpMeaning(error) : undefined);
      if (refused) throw new MessageRefused(refused, { cause: error });
      if (answer) return this.#answer(message, answer, error);
      throw new MessageRefused(this.redact(messageOf(error)), { cause: error });
    }
  }

  /** The request gets the server's error answer as if it came as a message; anything else fails alone. */
  #answer(message: JSONRPCMessage, answer: JsonRpcErrorBody, cause: unknown): void {
    this.#mayFallBack = false;
    const id = "id" in message ? message.id : undefined;
    if (id !== undefined && answer.id === id) {
      this.#inner.onmessage?.({ jsonrpc: "2.0", id, error: answer.error });
      return;
    }
    const { code, message: text } = answer.error;
    throw new MessageRefused(this.redact(`the server answered with an error: ${text} (JSON-RPC error ${code})`), { cause });
  }

  #closed?: Promise<void>;

  /** The link's close and the SDK Client's close of its transport are one. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    this.#options.room?.clear();
    const inner = this.#inner;
    if (inner instanceof StreamableHTTPClientTransport && sessionOf(inner) !== undefined && !this.#lostReason) {
      // Ending the session lets the server free it at once; a server that does not answer soon is left.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_MS)));
      await Promise.race([inner.terminateSession().catch(() => {}), late]);
      clearTimeout(timer);
    }
    await inner.close().catch(() => {});
  }

  /** 2026-07-28 over HTTP: a request is cancelled by ending its POST (the server sees the stream close). */
  abortRequest(id: RequestId): boolean {
    const post = this.#posts.get(id);
    if (!post) return false;
    this.#posts.delete(id);
    const reason = new Error(ABORT_TEXT);
    ABORTED.add(reason);
    post.abort(reason);
    return true;
  }

  /** A server request that came on the SSE stream of one of our POSTs was made within that request. */
  askedFor(id: RequestId): RequestId | undefined {
    return this.#owners.take(id);
  }

  /** A remote server has no exit status: why it was lost reaches the server session through onLost. */
  endedWithin(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  /** What its messages are masked with: its secrets, not every header and query value (see Redactor.forServerMessages). */
  get redactor(): Redactor {
    return this.#redactors.messages;
  }

  redact(text: string): string {
    return this.#redactors.all.redact(text);
  }

  #create(kind: "http" | "sse"): StreamableHTTPClientTransport | SSEClientTransport {
    const { authProvider, config, readGate } = this.#options;
    const url = this.#url;
    const watched = this.#owners.watch(boundedFetch(config.maxMessageBytes, readGate));
    const plain = withEraHeaders(withServerHeaders(url, this.#headers, watched), this.#posts);
    const direct = this.#options.traceHeaders ? withTraceHeaders(plain) : plain;
    const exchange = this.#options.exchange;
    const mask = (token: string) =>
      token !== this.#masked && (this.#redactors = linkRedactors(config, [...this.#basic, this.#masked = token]));
    const owned = exchange ? exchangingFetch(exchange, direct, mask) : direct;
    const checked = authProvider ? recheckingFetch(url, authProvider, owned) : owned;
    const fetch: FetchLike = async (input, init) => {
      const response = await checked(input, init);
      if (response.status === 401) this.#challenged = true;
      return response;
    };
    const options = { authProvider, fetch };
    const inner = kind === "http" ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
    inner.onmessage = (message) => {
      // As on stdio: what the lane and our own output would recurse through must have a bounded depth.
      if (nestedDeeperThan(message)) return this.#lose(`server sent a message nested deeper than ${MAX_JSON_DEPTH} levels`);
      if ("id" in message && !("method" in message) && message.id !== undefined) this.#posts.delete(message.id);
      if (!this.claim?.(message)) this.onmessage?.(message);
    };
    inner.onerror = (error) => this.#onError(error);
    inner.onclose = () => {
      if (inner === this.#inner) this.onclose?.();
    };
    return inner;
  }

  /**
   * The SDK reports here what it cannot throw: a stream that broke (the server went away), a
   * message it could not parse. A broken stream ends the link; pending calls fail at once.
   */
  #onError(error: Error): void {
    // The SDK reports the end of a POST we cut ourselves (a cancelled 2026-07-28 request): not news.
    // Once its answer is an event stream, the SDK reports it only as text ("SSE stream disconnected: <reason>").
    if (ABORTED.has(error) || (error.cause instanceof Error && ABORTED.has(error.cause))) return;
    if (error.message.startsWith("SSE stream disconnected: ") && error.message.includes(ABORT_TEXT)) return;
    const refused = this.#refusal(error);
    if (refused) return this.#lose(refused);
    const text = this.redact(messageOf(error));
    this.#options.log(text);
    const broken = text.startsWith("SSE stream disconnected") || error.name === "SseError" ||
      error.constructor.name === "SseError" || text.includes("(maxMessageBytes)");
    if (broken) this.#lose(`connection to the server lost: ${text}`);
  }

  #lose(reason: string): void {
    if (this.#lostReason) return;
    this.#lostReason = reason;
    this.onLost?.(reason);
  }
}

/** The reasons of the POSTs abortRequest ended. */
const ABORTED = new WeakSet<Error>();
/** Their text, which no server can write into an error of ours: it holds a value drawn at start. */
const ABORT_TEXT = `cancelled by the workbench (${crypto.randomUUID()})`;

/** Only Streamable HTTP has a session id in a header; SSE's lives in its endpoint URL. */
function sessionOf(transport: StreamableHTTPClientTransport | SSEClientTransport): string | undefined {
  return transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
}
