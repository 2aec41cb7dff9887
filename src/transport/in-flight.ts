/**
 * The requests in flight on one connection, both ways: the peer's (read, and not yet answered and
 * written) and ours (sent, and not yet answered). Past a bound of the peer's, `gate` is held, so
 * that a peer that writes requests without reading the answers waits in its pipe, not in our
 * memory; it opens again at half. Each request of ours the peer still owes an answer raises the
 * bound by one: a call waiting on the peer's answer (a server's elicitation) must not stop us
 * reading that answer.
 */
import type { JSONRPCMessage, RequestId } from "../protocol/sdk.ts";
import { FlowGate } from "./flow-gate.ts";

export class InFlight {
  /** Held while the peer has too many requests in flight. */
  readonly gate = new FlowGate();
  readonly #max: number;
  /** Ids of the peer's requests that have no response written yet. */
  readonly #theirs = new Set<RequestId>();
  /** Ids of our requests to the peer that have no response yet. */
  readonly #ours = new Set<RequestId>();
  #drained?: () => void;

  constructor(max = Infinity) {
    this.#max = max;
  }

  /** The peer's request `id` is in flight. */
  has(id: RequestId): boolean {
    return this.#theirs.has(id);
  }

  /** We sent a request to the peer, which it owes an answer to. */
  isOurs(id: RequestId): boolean {
    return this.#ours.has(id);
  }

  /** A request of the peer's was read. */
  read(id: RequestId): void {
    if (this.#theirs.add(id).size >= this.#limit()) this.gate.hold(this);
  }

  /**
   * We sent the peer a message. A request's answer must be read: a call waiting on it is not one
   * that fills our memory. A request of ours we cancel gets no answer (MCP): it raises the bound no more.
   */
  sent(message: JSONRPCMessage): void {
    if (!("method" in message)) return;
    if ("id" in message) {
      this.#ours.add(message.id);
      if (this.#theirs.size < this.#limit()) this.gate.release(this);
    } else if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === "string" || typeof id === "number") this.#ours.delete(id);
    }
  }

  /** The peer answered a request of ours. */
  answered(id: RequestId): void {
    this.#ours.delete(id);
  }

  /** These requests of the peer's were answered and the answers written (or it cancelled one). */
  done(ids: Iterable<RequestId | undefined>): void {
    for (const id of ids) if (id !== undefined) this.#theirs.delete(id);
    if (this.#theirs.size <= this.#max / 2 + this.#ours.size) this.gate.release(this);
    if (this.#theirs.size === 0) this.#drained?.();
  }

  /** Waits until every request of the peer's is answered, `ms` at most. */
  async drained(ms: number): Promise<void> {
    if (this.#theirs.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#drained = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
  }

  #limit(): number {
    return this.#max + this.#ours.size;
  }
}
