/**
 * "Connect your account" (issue 49 §3): a member who lacks a secret a server needs is asked, within
 * the call that needs it, to open a page of `serve --http` (`/connect/<id>`) and paste it there. The
 * id is one-time and short-lived, drawn at random (256 bits: it is the page's only key, since a
 * browser brings no bearer token), and names the member, the secret and the server it is for. It is
 * kept in the store, so that whichever replica the browser reaches serves the page; the page takes
 * it once, keeps the value in the member vault, and says so on the store's feed, where the replica
 * that asked is waiting.
 */
import { type Store, storeKey } from "../store/store.ts";
import { isObject } from "../protocol/json-object.ts";
import { SECRET_NAME } from "../config/member-secrets.ts";

/** How long a page may be opened and sent after it was asked for. */
export const CONNECT_TTL_MS = 10 * 60_000;
const ID = /^[A-Za-z0-9_-]{43}$/;
const DONE = storeKey("connect", "done");
/** At most this many members' origins are remembered; past it, the oldest goes. */
const MAX_ORIGINS = 10_000;

/** What a page is for: whose secret, which one, and the server that asked (for the person who opens it). */
export interface ConnectRequest {
  client: string;
  name: string;
  server: string;
}

/** A session's way to ask its member for a secret: the flow of `serve --http`, and who the member is. */
export interface SecretAsking {
  readonly flow: ConnectFlow;
  readonly member: string;
}

export class ConnectFlow {
  readonly #store: Store;
  readonly #origins = new Map<string, string>();
  readonly #waiting = new Map<string, Set<() => void>>();
  #listening?: Promise<unknown>;

  constructor(store: Store) {
    this.#store = store;
  }

  /** The origin `member` reached the workbench at (their client's own URL for it): their page is on it. */
  seen(member: string, origin: string): void {
    this.#origins.delete(member);
    if (this.#origins.size >= MAX_ORIGINS) this.#origins.delete(this.#origins.keys().next().value!);
    this.#origins.set(member, origin);
  }

  /** A new page for `request`: its URL, and the id its completion is awaited by. */
  async open(request: ConnectRequest): Promise<{ id: string; url: string }> {
    const origin = this.#origins.get(request.client);
    if (origin === undefined) throw new Error(`No address is known for client '${request.client}' to open a page at`);
    const id = newConnectId();
    await this.#listen();
    await this.#store.set(storeKey("connect", "page", id), JSON.stringify(request), CONNECT_TTL_MS);
    return { id, url: `${origin}/connect/${id}` };
  }

  /** What the page of `id` is for, while it may be used; undefined for an id that is none (or expired, or used). */
  async read(id: string): Promise<ConnectRequest | undefined> {
    return ID.test(id) ? parse(await this.#store.get(storeKey("connect", "page", id))) : undefined;
  }

  /** Takes the page of `id`: of two sends, one gets it. */
  async take(id: string): Promise<ConnectRequest | undefined> {
    return ID.test(id) ? parse(await this.#store.take(storeKey("connect", "page", id))) : undefined;
  }

  /** The page of `id` was sent: whoever waits for it (on any replica) goes on. */
  async done(id: string): Promise<void> {
    await this.#store.publish(DONE, id);
  }

  /** True once the page of `id` was sent; false when `signal` ends first. */
  wait(id: string, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(id) ?? new Set();
      const finish = (sent: boolean) => {
        waiters.delete(go);
        if (waiters.size === 0) this.#waiting.delete(id);
        signal.removeEventListener("abort", stop);
        resolve(sent);
      };
      const go = () => finish(true);
      const stop = () => finish(false);
      if (signal.aborted) return resolve(false);
      waiters.add(go);
      this.#waiting.set(id, waiters);
      signal.addEventListener("abort", stop, { once: true });
    });
  }

  /** Follows the feed once, from the first page asked for. */
  #listen(): Promise<unknown> {
    this.#listening ??= this.#store.subscribe(DONE, (id) => {
      for (const go of [...this.#waiting.get(id) ?? []]) go();
    }).catch((error) => {
      this.#listening = undefined;
      throw error;
    });
    return this.#listening;
  }
}

/** 32 random bytes, base64url without padding (43 characters). */
function newConnectId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A page's record as read back: input, checked. */
function parse(text: string | undefined): ConnectRequest | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const { client, name, server } = value;
  if (typeof client !== "string" || typeof server !== "string" || typeof name !== "string" || !SECRET_NAME.test(name)) return undefined;
  return { client, name, server };
}
