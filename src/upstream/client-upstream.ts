/**
 * The client in front of the workbench, as the servers behind it need it: what it declared at
 * initialize, requests to it (elicitation, sampling, roots) and notifications (logging, the end of
 * a URL elicitation), the logging level it set and its roots changing. Servers declare to their
 * own initialize what this client declared (see downstream/relay.ts), so that a server can do
 * through us what it does for the client directly.
 */
import {
  type ClientCapabilities,
  type LoggingLevel,
  type RequestId,
  ResultSchema,
  RootsListChangedNotificationSchema,
  type Server,
  SetLevelRequestSchema,
} from "../protocol/sdk.ts";
import type { UpstreamGate } from "./era/gate.ts";
import { levelAdmits, Listeners, type Upstream, type UpstreamRequestOptions } from "../protocol/upstream.ts";
import { INPUT_METHODS } from "../protocol/wire.ts";


/** One session's Upstream, of the SDK Server that serves its client: attached once the Server exists. */
export class ClientUpstream implements Upstream {
  #server?: Server;
  #gate?: UpstreamGate;
  #logLevel?: LoggingLevel;
  readonly #levelListeners = new Listeners<[LoggingLevel]>();
  readonly #rootsListeners = new Listeners();

  get capabilities(): ClientCapabilities | undefined {
    return this.#gate?.modern ? this.#gate.capabilities : this.#server?.getClientCapabilities();
  }

  get logLevel(): LoggingLevel | undefined {
    return this.#logLevel;
  }

  /**
   * Takes logging/setLevel and notifications/roots/list_changed from the client. The gate tells
   * whether the client speaks 2026-07-28, which asks through results instead of requests.
   */
  attach(server: Server, gate?: UpstreamGate): void {
    this.#server = server;
    this.#gate = gate;
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      this.levelSet(request.params.level);
      return {};
    });
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      this.#rootsListeners.emit();
    });
  }

  /** The client set a logging level: with logging/setLevel, or in a 2026-07-28 request's `_meta`. */
  levelSet(level: string): void {
    this.#logLevel = level as LoggingLevel;
    this.#levelListeners.emit(level as LoggingLevel);
  }

  async request(method: string, params: Record<string, unknown> | undefined, options: UpstreamRequestOptions) {
    const server = this.#server;
    if (!server) throw new Error("No client is connected");
    if (this.#gate?.modern) return await this.#askWithinCall(this.#gate, method, params, options);
    // ResultSchema keeps every field: the server behind us checks the result, as it would directly.
    return await server.request({ method, params } as never, ResultSchema, options) as Record<string, unknown>;
  }

  async notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId) {
    // A server shared with a more verbose session logs at that session's level: this one gets its own.
    if (method === "notifications/message" && !levelAdmits(this.#logLevel, params?.level)) return;
    await this.#server?.notification({ method, params } as never, { relatedRequestId });
  }

  /** A 2026-07-28 client is asked within the call the question is for, and answers with its retry. */
  #askWithinCall(gate: UpstreamGate, method: string, params: Record<string, unknown> | undefined, options: UpstreamRequestOptions) {
    if (!INPUT_METHODS.has(method) || options.relatedRequestId === undefined) {
      throw new Error(`The client speaks MCP 2026-07-28, which takes ${method} only during a tool call`);
    }
    const timeout = AbortSignal.timeout(options.timeout);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    return gate.parked.ask(options.relatedRequestId, { method, params: withoutProgressToken(params) }, signal, options.from);
  }

  onLogLevel(listener: (level: LoggingLevel) => void): () => void {
    return this.#levelListeners.add(listener);
  }

  onRootsChanged(listener: () => void): () => void {
    return this.#rootsListeners.add(listener);
  }
}

/** An embedded request has no progress of its own: the server's token for it would mean nothing. */
function withoutProgressToken(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (!meta || !("progressToken" in meta)) return params;
  const { progressToken: _, ...rest } = meta;
  const { _meta: __, ...others } = params!;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}
