/**
 * The client in front of the workbench, as the servers behind it need it: what it declared at
 * initialize, requests to it (elicitation, sampling, roots) and notifications (logging, the end of
 * a URL elicitation), the logging level it set and its roots changing. Servers declare to their
 * own initialize what this client declared (see downstream-relay.ts), so that a server can do
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
} from "../sdk.ts";

export interface UpstreamRequestOptions {
  /** Cancels the request at the client (notifications/cancelled). */
  signal?: AbortSignal;
  /** The client's own request (a use_tool call) this one is made for. */
  relatedRequestId?: RequestId;
  /** How long the client may take to answer. */
  timeout: number;
}

export interface Upstream {
  /** What the client declared at initialize; undefined before it. */
  readonly capabilities: ClientCapabilities | undefined;
  /** The level the client last set with logging/setLevel, if it set one. */
  readonly logLevel: LoggingLevel | undefined;
  /** Sends a request to the client and gives its result as it came. */
  request(method: string, params: Record<string, unknown> | undefined, options: UpstreamRequestOptions): Promise<Record<string, unknown>>;
  notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId): Promise<void>;
  /** Called each time the client sets a logging level; returns the unsubscribe. */
  onLogLevel(listener: (level: LoggingLevel) => void): () => void;
  /** Called each time the client says its roots changed; returns the unsubscribe. */
  onRootsChanged(listener: () => void): () => void;
}

/** The Upstream of the SDK Server that serves the client: attached once the Server exists. */
export class ClientUpstream implements Upstream {
  #server?: Server;
  #logLevel?: LoggingLevel;
  readonly #levelListeners = new Set<(level: LoggingLevel) => void>();
  readonly #rootsListeners = new Set<() => void>();

  get capabilities(): ClientCapabilities | undefined {
    return this.#server?.getClientCapabilities();
  }

  get logLevel(): LoggingLevel | undefined {
    return this.#logLevel;
  }

  /** Takes logging/setLevel and notifications/roots/list_changed from the client. */
  attach(server: Server): void {
    this.#server = server;
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      this.#logLevel = request.params.level;
      for (const listener of [...this.#levelListeners]) listener(request.params.level);
      return {};
    });
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      for (const listener of [...this.#rootsListeners]) listener();
    });
  }

  async request(method: string, params: Record<string, unknown> | undefined, options: UpstreamRequestOptions) {
    const server = this.#server;
    if (!server) throw new Error("No client is connected");
    // ResultSchema keeps every field: the server behind us checks the result, as it would directly.
    return await server.request({ method, params } as never, ResultSchema, options) as Record<string, unknown>;
  }

  async notify(method: string, params: Record<string, unknown> | undefined, relatedRequestId?: RequestId) {
    await this.#server?.notification({ method, params } as never, { relatedRequestId });
  }

  onLogLevel(listener: (level: LoggingLevel) => void): () => void {
    this.#levelListeners.add(listener);
    return () => this.#levelListeners.delete(listener);
  }

  onRootsChanged(listener: () => void): () => void {
    this.#rootsListeners.add(listener);
    return () => this.#rootsListeners.delete(listener);
  }
}
