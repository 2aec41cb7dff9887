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
import type { MemberVault } from "./member-vault.ts";
import type { LoginStart, PendingLogin } from "./member-login.ts";

/** Where the authorization server sends a member's browser back to, on the workbench (connect-page.ts). */
export const CALLBACK_PATH = "/connect/callback";
/** How long a page may be opened and sent after it was asked for. */
export const CONNECT_TTL_MS = 10 * 60_000;
const ID = /^[A-Za-z0-9_-]{43}$/;
/** A login's id: the OAuth state its provider drew (a UUID). */
const STATE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
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

/** How a page ended: sent (a secret kept), or a login's redirect with its code or its error. */
export interface PageOutcome {
  code?: string;
  error?: string;
}

export class ConnectFlow {
  readonly #store: Store;
  readonly vault: MemberVault;
  readonly #origins = new Map<string, string>();
  readonly #waiting = new Map<string, Set<(outcome: PageOutcome) => void>>();
  /** The asks under way in this process, by what they ask for: calls at the same time share one. */
  readonly #asking = new Map<string, Promise<string | undefined>>();
  #listening?: Promise<unknown>;

  constructor(store: Store, vault: MemberVault) {
    this.#store = store;
    this.vault = vault;
  }

  /**
   * One ask at a time for one thing (a member's secret, their login to a server): a call that needs
   * it while it is asked waits for that ask (its answer, or why it failed) instead of asking again.
   */
  once(key: string, ask: () => Promise<string | undefined>): Promise<string | undefined> {
    let asked = this.#asking.get(key);
    if (!asked) {
      asked = ask().finally(() => this.#asking.delete(key));
      this.#asking.set(key, asked);
    }
    return asked;
  }

  /** The origin `member` reached the workbench at (their client's own URL for it): their page is on it. */
  seen(member: string, origin: string): void {
    this.#origins.delete(member);
    if (this.#origins.size >= MAX_ORIGINS) this.#origins.delete(this.#origins.keys().next().value!);
    this.#origins.set(member, origin);
  }

  /** A new page for `request`: its URL, and the id its completion is awaited by. */
  async open(request: ConnectRequest): Promise<{ id: string; url: string }> {
    this.#originOf(request.client);
    const id = newConnectId();
    await this.#listen();
    await this.#store.set(storeKey("connect", "page", id), JSON.stringify(request), CONNECT_TTL_MS);
    return { id, url: `${this.#originOf(request.client)}/connect/${id}` };
  }

  /**
   * A member's own login to a remote server begun (member-login.ts): its id is the OAuth state the
   * callback brings back; undefined when the server needs no login after all.
   */
  async login(start: Omit<LoginStart, "redirectUrl">): Promise<PendingLogin | undefined> {
    const origin = this.#originOf(start.client);
    // The SDK's OAuth client loads with the first member's login, not to serve (tests/start-up-modules.test.ts).
    const { startLogin } = await import("./member-login.ts");
    const pending = await startLogin(this.vault, { ...start, redirectUrl: `${origin}${CALLBACK_PATH}` });
    if (!pending) return undefined;
    await this.#listen();
    const record = JSON.stringify({ client: start.client, authorize: pending.url });
    await this.#store.set(storeKey("connect", "login", pending.state), record, CONNECT_TTL_MS);
    // The member opens the workbench's own page, which sends them on to the authorization server.
    return { ...pending, url: `${origin}/connect/${pending.state}` };
  }

  /** Where the login page of `state` sends the member's browser: the authorization server's page; undefined when it is none. */
  async loginPage(state: string): Promise<string | undefined> {
    if (!STATE.test(state)) return undefined;
    const text = await this.#store.get(storeKey("connect", "login", state));
    let value: unknown;
    try {
      value = text === undefined ? undefined : JSON.parse(text);
    } catch {
      return undefined;
    }
    return isObject(value) && typeof value.authorize === "string" && /^https?:\/\//.test(value.authorize) ? value.authorize : undefined;
  }

  /** The login of `state` came back: of two redirects, one gets it. */
  async takeLogin(state: string): Promise<boolean> {
    return STATE.test(state) && await this.#store.take(storeKey("connect", "login", state)) !== undefined;
  }

  #originOf(member: string): string {
    const origin = this.#origins.get(member);
    if (origin === undefined) throw new Error(`No address is known for client '${member}' to open a page at`);
    return origin;
  }

  /** What the page of `id` is for, while it may be used; undefined for an id that is none (or expired, or used). */
  async read(id: string): Promise<ConnectRequest | undefined> {
    return ID.test(id) ? parse(await this.#store.get(storeKey("connect", "page", id))) : undefined;
  }

  /** Takes the page of `id`: of two sends, one gets it. */
  async take(id: string): Promise<ConnectRequest | undefined> {
    return ID.test(id) ? parse(await this.#store.take(storeKey("connect", "page", id))) : undefined;
  }

  /** The page of `id` was sent (a login's: with its code or error): whoever waits for it (on any replica) goes on. */
  async done(id: string, outcome: PageOutcome = {}): Promise<void> {
    await this.#store.publish(DONE, JSON.stringify({ id, ...outcome }));
  }

  /** How the page of `id` ended; undefined when `signal` ends first. */
  wait(id: string, signal: AbortSignal): Promise<PageOutcome | undefined> {
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(id) ?? new Set();
      const finish = (outcome: PageOutcome | undefined) => {
        waiters.delete(go);
        if (waiters.size === 0) this.#waiting.delete(id);
        signal.removeEventListener("abort", stop);
        resolve(outcome);
      };
      const go = (outcome: PageOutcome) => finish(outcome);
      const stop = () => finish(undefined);
      if (signal.aborted) return resolve(undefined);
      waiters.add(go);
      this.#waiting.set(id, waiters);
      signal.addEventListener("abort", stop, { once: true });
    });
  }

  /** Follows the feed once, from the first page asked for. */
  #listen(): Promise<unknown> {
    this.#listening ??= this.#store.subscribe(DONE, (message) => {
      const heard = outcomeOf(message);
      if (heard) for (const go of [...this.#waiting.get(heard.id) ?? []]) go(heard.outcome);
    }).catch((error) => {
      this.#listening = undefined;
      throw error;
    });
    return this.#listening;
  }
}

/** A message of the feed, as input: the page's id, and a login's code or error (bounded). */
function outcomeOf(message: string): { id: string; outcome: PageOutcome } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isObject(value) || typeof value.id !== "string") return undefined;
  const text = (key: "code" | "error") => typeof value[key] === "string" && value[key].length <= 4096 ? { [key]: value[key] } : {};
  return { id: value.id, outcome: { ...text("code"), ...text("error") } };
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
