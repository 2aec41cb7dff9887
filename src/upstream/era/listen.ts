/**
 * subscriptions/listen for a 2026-07-28 client: its one way to hear that lists changed or that a
 * resource was updated. A listen request stays open; what it asked for comes as notifications
 * tagged with its id; cancelling it ends it. Resource subscriptions are made behind us as the
 * 2025 way does them (resources/subscribe), once per URI however many listens want it.
 */
import type { JSONRPCMessage, RequestId } from "../../protocol/sdk.ts";
import { MAX_LISTENS, MAX_URIS_PER_LISTEN } from "./bounds.ts";

export const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";

interface Filter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

const LIST_CHANGED: Record<string, keyof Filter> = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
};

export class ListenSubscriptions {
  readonly #send: (message: JSONRPCMessage) => void;
  /** Subscribes (true) or unsubscribes a URI behind us. */
  readonly #watch: (uri: string, on: boolean) => void;
  readonly #open = new Map<RequestId, Filter>();
  readonly #watched = new Map<string, number>();

  constructor(send: (message: JSONRPCMessage) => void, watch: (uri: string, on: boolean) => void) {
    this.#send = send;
    this.#watch = watch;
  }

  /** Opens a listen; what is wrong with it instead, when it is refused (nothing is counted then). */
  open(id: RequestId, params: unknown): string | undefined {
    const refused = this.#refusal(id, params);
    if (refused) return refused;
    const asked = (params as { notifications?: Filter } | undefined)?.notifications ?? {};
    const filter: Filter = {
      toolsListChanged: asked.toolsListChanged === true,
      promptsListChanged: asked.promptsListChanged === true,
      resourcesListChanged: asked.resourcesListChanged === true,
      resourceSubscriptions: Array.isArray(asked.resourceSubscriptions)
        ? [...new Set(asked.resourceSubscriptions.filter((uri): uri is string => typeof uri === "string"))]
        : [],
    };
    this.#open.set(id, filter);
    for (const uri of filter.resourceSubscriptions!) {
      const count = this.#watched.get(uri) ?? 0;
      this.#watched.set(uri, count + 1);
      if (count === 0) this.#watch(uri, true);
    }
    this.#send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { [SUBSCRIPTION_ID_KEY]: id }, notifications: filter },
    });
    return undefined;
  }

  /**
   * A listen is refused when its id is one already open (counted twice, its URIs would never be
   * unsubscribed behind us), when MAX_LISTENS are open, or when it names too many URIs.
   */
  #refusal(id: RequestId, params: unknown): string | undefined {
    if (this.#open.has(id)) {
      return `Invalid params: subscriptions/listen ${JSON.stringify(id)} is already open: cancel it first or use another id`;
    }
    if (this.#open.size >= MAX_LISTENS) {
      return `Invalid params: ${MAX_LISTENS} listens are open, the most a connection may have: cancel one first`;
    }
    const uris = (params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications?.resourceSubscriptions;
    if (Array.isArray(uris) && uris.length > MAX_URIS_PER_LISTEN) {
      return `Invalid params: notifications.resourceSubscriptions has ${uris.length} URIs, over the limit of ${MAX_URIS_PER_LISTEN}`;
    }
    return undefined;
  }

  /** Ends the listen `id`, if it is one; true when it was. */
  cancelled(id: RequestId): boolean {
    const filter = this.#open.get(id);
    if (!filter) return false;
    this.#open.delete(id);
    for (const uri of filter.resourceSubscriptions!) {
      const count = (this.#watched.get(uri) ?? 1) - 1;
      if (count > 0) this.#watched.set(uri, count);
      else {
        this.#watched.delete(uri);
        this.#watch(uri, false);
      }
    }
    return true;
  }

  /** What a notification becomes: one copy per listen that asked for it, or itself when it is no list's. */
  route(message: JSONRPCMessage): JSONRPCMessage[] {
    if (!("method" in message) || "id" in message) return [message];
    const params = (message.params ?? {}) as Record<string, unknown>;
    const key = LIST_CHANGED[message.method];
    let wants: ((filter: Filter) => boolean) | undefined;
    if (key) wants = (filter) => filter[key] === true;
    else if (message.method === "notifications/resources/updated") {
      wants = (filter) => filter.resourceSubscriptions!.includes(params.uri as string);
    }
    if (!wants) return [message];
    const copies: JSONRPCMessage[] = [];
    for (const [id, filter] of this.#open) {
      if (!wants(filter)) continue;
      const meta = { ...(params._meta as Record<string, unknown> | undefined), [SUBSCRIPTION_ID_KEY]: id };
      copies.push({ ...message, params: { ...params, _meta: meta } } as JSONRPCMessage);
    }
    return copies;
  }
}
