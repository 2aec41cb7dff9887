/**
 * Which era a server speaks: `server/discover` with the 2026-07-28 envelope. A result that lists
 * 2026-07-28 is a modern server; an error answer (a 2025 server's -32601), a result without it, a
 * refused send or no answer in time is a legacy server, to be initialized on the same link.
 */
import type { JSONRPCMessage } from "../../protocol/sdk.ts";
import {
  DISCOVER_METHOD,
  type DiscoverResult,
  type Envelope,
  isDiscoverResult,
  MODERN_VERSION,
  withEnvelope,
} from "../../protocol/wire.ts";

/** How long a server gets to answer the probe: a 2025 server that ignores unknown methods costs this once. */
export const PROBE_MS = 2_000;

export type ProbeOutcome =
  | { era: "modern"; result: DiscoverResult }
  /**
   * `answered` is false when no answer came in time: a slow start, not proof of a 2025 server. A
   * refused send (an HTTP server's 4xx) counts as an answer; should that server turn out to speak
   * only 2026-07-28, its -32022 to initialize has it probed again.
   */
  | { era: "legacy"; why: string; answered: boolean }
  | { era: "lost" };

/** The probe's bound: never more than half the server's connect timeout, which initialize needs too. */
export function probeTimeout(connectTimeoutMs: number): number {
  return Math.max(1, Math.min(PROBE_MS, Math.floor(connectTimeoutMs / 2)));
}

/** One probe in flight; `take` sees every message from the server first. */
export class Probe {
  readonly id: string;
  readonly outcome: Promise<ProbeOutcome>;
  #settle!: (outcome: ProbeOutcome) => void;
  #settled = false;

  constructor(id: string) {
    this.id = id;
    this.outcome = new Promise((resolve) => (this.#settle = resolve));
  }

  /** Sends the probe and waits at most `timeoutMs` for its answer. */
  async run(send: (message: JSONRPCMessage) => Promise<void>, envelope: Envelope, timeoutMs: number): Promise<ProbeOutcome> {
    const timer = setTimeout(
      () => this.settle({ era: "legacy", why: `no answer to ${DISCOVER_METHOD} within ${timeoutMs} ms`, answered: false }),
      timeoutMs,
    );
    send({ jsonrpc: "2.0", id: this.id, method: DISCOVER_METHOD, params: withEnvelope({}, envelope) })
      .catch((error) =>
        this.settle({
          era: "legacy",
          why: `${DISCOVER_METHOD} refused: ${error instanceof Error ? error.message : String(error)}`,
          answered: true,
        })
      );
    try {
      return await this.outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The answer to the probe (even a late one) is ours: true when `message` was it. */
  take(message: JSONRPCMessage): boolean {
    if ("method" in message || !("id" in message) || message.id !== this.id) return false;
    if ("error" in message) this.settle({ era: "legacy", why: `${DISCOVER_METHOD} answered: ${message.error.message}`, answered: true });
    else {
      const result = (message as { result?: unknown }).result;
      const modern = isDiscoverResult(result) && result.supportedVersions.includes(MODERN_VERSION);
      this.settle(
        modern ? { era: "modern", result } : { era: "legacy", why: `${DISCOVER_METHOD} does not list ${MODERN_VERSION}`, answered: true },
      );
    }
    return true;
  }

  settle(outcome: ProbeOutcome): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#settle(outcome);
  }
}
