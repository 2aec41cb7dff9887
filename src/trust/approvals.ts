/**
 * What the user approved in one session: tools approved "for this session" (with any arguments),
 * and the retries of an approved call that a 2026-07-28 server asked for input (its `requestState`
 * comes back with the client's answers as a new tools/call, which must not ask the user a second
 * time): each bound to the tool and the SHA-256 of the arguments approved, and taken once, by one
 * replica only when the store is shared. Kept in the session's store (StoredApprovals): a new
 * session asks again.
 */
import { canonicalJson } from "../cache/canonical-json.ts";
import { sha256Hex } from "../cache/sha256.ts";
import { type Store, storeKey } from "../store/store.ts";

/** How long an allowed retry waits: a client that never retries holds nothing for long. */
export const RETRY_MS = 10 * 60_000;

/** The SHA-256 (hex) of the arguments' canonical JSON: key order does not count, every value does. */
export function argumentsDigest(args: unknown): string {
  return sha256Hex(canonicalJson(args));
}

/** One key per tool: toolbox, server and name. */
export function approvalKey(tool: { toolbox: string; server: string; name: string }): string {
  return JSON.stringify([tool.toolbox, tool.server, tool.name]);
}

/** What a session's approvals are to the approve step: asked and changed only through this, each answer awaited. */
export interface KeptApprovals {
  /** True when the user approved this tool for the rest of the session. */
  remembered(key: string): Promise<boolean>;
  remember(key: string): Promise<void>;
  /** The approved call got `input_required` with `state`: its retry, with the same arguments, runs unasked once. */
  allowRetry(key: string, state: string, args: unknown): Promise<void>;
  /** True once for a retry allowed (and not expired); it is then used up. */
  takeRetry(key: string, state: string, args: unknown): Promise<boolean>;
}

/**
 * A session's approvals in the store, under the session's key: the tools approved for the session
 * as fields of one key (which lives as long as the session does: see `ttlMs`), each retry allowed
 * as a key of its own, taken once.
 */
export class StoredApprovals implements KeptApprovals {
  readonly #store: Store;
  readonly #session: string;
  readonly #ttlMs: () => number;

  /** `ttlMs`: how long the session's approvals outlive its last use (read at each approval). */
  constructor(store: Store, session: string, ttlMs: () => number) {
    this.#store = store;
    this.#session = session;
    this.#ttlMs = ttlMs;
  }

  async remembered(key: string): Promise<boolean> {
    const approved = await this.#store.fields(storeKey(this.#session, "approved"));
    return Object.hasOwn(approved, key);
  }

  remember(key: string): Promise<void> {
    return this.#store.setField(storeKey(this.#session, "approved"), key, "1", this.#ttlMs());
  }

  allowRetry(key: string, state: string, args: unknown): Promise<void> {
    return this.#store.set(storeKey(this.#session, "retry", retryKey(key, state, args)), "1", RETRY_MS);
  }

  async takeRetry(key: string, state: string, args: unknown): Promise<boolean> {
    return await this.#store.take(storeKey(this.#session, "retry", retryKey(key, state, args))) !== undefined;
  }
}

/** The keys of a session's approvals in the store, for the session's end. */
export function approvalKeys(session: string): string[] {
  return [storeKey(session, "approved")];
}

/** A retry's id: the tool, the server's state and the arguments, hashed (a state may be long). */
function retryKey(key: string, state: string, args: unknown): string {
  return sha256Hex(JSON.stringify([key, state, argumentsDigest(args)]));
}
