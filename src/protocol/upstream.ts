/**
 * The client a server session works for, as the servers' side sees it: what it declared, requests
 * to it and notifications, its log level and roots changing. The client's side implements it
 * (upstream/client-upstream.ts, one per session; toolboxes/server-users.ts for the sessions that
 * share a server); the servers' side and a login in the chat only use it.
 */
import type { ClientCapabilities, LoggingLevel, RequestId } from "./sdk.ts";

export interface UpstreamRequestOptions {
  /** Cancels the request at the client (notifications/cancelled). */
  signal?: AbortSignal;
  /** The client's own request (a use_tool call) this one is made for. */
  relatedRequestId?: RequestId;
  /** How long the client may take to answer. */
  timeout: number;
  /** The server that asks ("toolbox/server"), named in a 2026-07-28 client's question. */
  from?: string;
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
  /**
   * The sessions this stands for, where it is several: a shared server's clients (see
   * toolboxes/server-users.ts). A session itself leaves it out: it is one.
   */
  sessions?(): readonly Upstream[];
}

/** The logging levels, most verbose first (RFC 5424 as MCP names them). */
export const LOG_LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** True when a message at `level` is let through by a client that set `threshold` (none set: all). */
export function levelAdmits(threshold: LoggingLevel | undefined, level: unknown): boolean {
  if (threshold === undefined) return true;
  const at = LOG_LEVELS.indexOf(level as LoggingLevel);
  return at === -1 || at >= LOG_LEVELS.indexOf(threshold);
}

/** Who listens for one kind of event: added with their unsubscribe, told in the order they came. */
export class Listeners<T extends unknown[] = []> {
  readonly #listeners = new Set<(...args: T) => void>();

  add(listener: (...args: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A listener that unsubscribes meanwhile is still told this once. */
  emit(...args: T): void {
    for (const listener of [...this.#listeners]) listener(...args);
  }
}
