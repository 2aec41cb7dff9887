/**
 * What the user approved in one session: tools approved "for this session" (with any arguments),
 * and the retries of an approved call that a 2026-07-28 server asked for input (its `requestState`
 * comes back with the client's answers as a new tools/call, which must not ask the user a second
 * time): each bound to the tool and the SHA-256 of the arguments approved, and taken once. Held in
 * memory only: a new session asks again.
 */
import { canonicalJson } from "../cache/canonical-json.ts";
import { sha256Hex } from "../cache/sha256.ts";

/** Retries waiting at most, and how long one waits: a client that never retries holds nothing for long. */
const MAX_RETRIES = 256;
const RETRY_MS = 10 * 60_000;

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

export class SessionApprovals implements KeptApprovals {
  readonly #tools = new Set<string>();
  /** Retry keys (tool, requestState, arguments' digest) by the time they were allowed, oldest first. */
  readonly #retries = new Map<string, number>();

  /** True when the user approved this tool for the rest of the session. */
  remembered(key: string): Promise<boolean> {
    return Promise.resolve(this.#tools.has(key));
  }

  remember(key: string): Promise<void> {
    this.#tools.add(key);
    return Promise.resolve();
  }

  /** The approved call got `input_required` with `state`: its retry, with the same arguments, runs unasked once. */
  allowRetry(key: string, state: string, args: unknown): Promise<void> {
    this.#retries.delete(retryKey(key, state, args));
    this.#retries.set(retryKey(key, state, args), Date.now());
    if (this.#retries.size > MAX_RETRIES) this.#retries.delete(this.#retries.keys().next().value!);
    return Promise.resolve();
  }

  /** True once for a retry allowed (and not expired); it is then used up. */
  takeRetry(key: string, state: string, args: unknown): Promise<boolean> {
    const id = retryKey(key, state, args);
    const allowed = this.#retries.get(id);
    this.#retries.delete(id);
    return Promise.resolve(allowed !== undefined && Date.now() - allowed <= RETRY_MS);
  }
}

function retryKey(key: string, state: string, args: unknown): string {
  return JSON.stringify([key, state, argumentsDigest(args)]);
}
