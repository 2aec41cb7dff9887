/**
 * The change feed across replicas (issue 48 §2). A 2025-11-25 session has a copy on each replica
 * its requests reached, but its client holds one GET stream, on one replica: a notification of no
 * request that a copy sends where the stream is not (a server's list changed, a resource updated,
 * the configuration changed) is published on one channel of the store, and the replica that holds
 * the stream writes it there. A 2026-07-28 client's hub likewise: what no listen of the hub's copy
 * here asked for goes to the copy that holds the client's listen (subscriptions/listen). Only what such a copy may say passes: the
 * list_changed notifications and resources/updated with its URI, made anew from what is checked
 * (a poisoned store can push nothing else, and nothing larger).
 */
import type { JSONRPCMessage, JSONRPCNotification } from "../../protocol/sdk.ts";
import { type Store, storeKey } from "../../store/store.ts";
import { isObject } from "../../protocol/json-object.ts";

/** One channel for 2025-11-25 sessions (by id), one for 2026-07-28 hubs (by key). */
export type NoticeChannel = "sessions" | "hubs";
const LIST_CHANGED = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
]);
const RESOURCE_UPDATED = "notifications/resources/updated";
/** A URI longer than this is not relayed (a resource's URI is far shorter). */
const MAX_URI_LENGTH = 8_192;
/** A session's id (a UUID) or a hub's (a SHA-256 of its key) is never longer. */
const MAX_SESSION_LENGTH = 128;

export class RelayedNotices {
  readonly #store: Store;
  readonly #channel: string;
  #watching?: Promise<unknown>;

  constructor(store: Store, channel: NoticeChannel) {
    this.#store = store;
    this.#channel = storeKey(channel, "notices");
  }

  /** Publishes `message` for session `session`'s stream; false (nothing sent) for a message that does not pass. */
  relay(session: string, message: JSONRPCMessage): boolean {
    const notice = noticeOf(message);
    if (!notice) return false;
    void this.#store.publish(this.#channel, JSON.stringify({ session, message: notice })).catch(() => {});
    return true;
  }

  /** Calls `heard` with each notice published (by any replica, this one included); subscribed once. */
  onNotice(heard: (session: string, message: JSONRPCNotification) => void): void {
    this.#watching ??= this.#store.subscribe(this.#channel, (text) => {
      const parsed = parseNotice(text);
      if (parsed) heard(parsed.session, parsed.message);
    }).catch(() => undefined);
  }

  async close(): Promise<void> {
    const stop = await this.#watching;
    if (typeof stop === "function") await stop();
  }
}

/** The notification as it is relayed, made anew from its checked parts; undefined for one that does not pass. */
export function noticeOf(message: unknown): JSONRPCNotification | undefined {
  if (!isObject(message) || message.jsonrpc !== "2.0" || "id" in message || typeof message.method !== "string") return undefined;
  if (LIST_CHANGED.has(message.method)) return { jsonrpc: "2.0", method: message.method };
  if (message.method !== RESOURCE_UPDATED || !isObject(message.params)) return undefined;
  const { uri } = message.params;
  if (typeof uri !== "string" || uri === "" || uri.length > MAX_URI_LENGTH) return undefined;
  return { jsonrpc: "2.0", method: RESOURCE_UPDATED, params: { uri } };
}

/** A notice read from the store, checked like input. */
export function parseNotice(text: string): { session: string; message: JSONRPCNotification } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || typeof value.session !== "string" || value.session === "" || value.session.length > MAX_SESSION_LENGTH) {
    return undefined;
  }
  const message = noticeOf(value.message);
  return message && { session: value.session, message };
}

/** What a client is told when the feed may have lost something (the store was away): every list may have changed. */
export const EVERY_LIST_CHANGED: readonly JSONRPCNotification[] = [...LIST_CHANGED].map((method) => ({ jsonrpc: "2.0", method }));
