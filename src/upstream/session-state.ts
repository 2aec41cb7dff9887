/**
 * The state seam (issue 37 §9): what a session keeps between its requests, behind one small
 * interface. A session's state is its kept result pages (read on with read_result), its approvals
 * (for this session, and a 2026-07-28 retry's), and its open toolboxes (the registry's own
 * holder). It is found by the session's key: a 2026-07-28 hub's key (client identity and declared
 * capabilities, the same on every replica), else a key of the session's own. In memory here
 * (MemorySessionStates); a store shared by replicas is one more implementation of SessionStates,
 * and tests/helpers/session-state-contract.ts is the contract it runs. Open toolboxes hold live
 * server sessions: such a store shares their names, and each replica opens its own (a request
 * that stands alone opens its toolbox, see tools/pipeline/resolve.ts).
 */
import type { OpenToolbox } from "../toolboxes/registry.ts";
import { type KeptResults, ResultStore } from "../tools/result-store.ts";
import { type KeptApprovals, SessionApprovals } from "../trust/approvals.ts";

/** What one session keeps. */
export interface SessionState {
  readonly results: KeptResults;
  readonly approvals: KeptApprovals;
  /** The toolboxes the session opened, by name (the registry's holder of them). */
  readonly toolboxes: Map<string, OpenToolbox>;
}

export interface SessionStates {
  /** The state of session `key`: empty on the first ask, then the same until `end(key)`. */
  of(key: string): SessionState;
  /** Session `key` ended: what it kept goes. */
  end(key: string): void;
  /** How many sessions keep state now. */
  readonly size: number;
}

/** Every session's state in this process's memory. */
export class MemorySessionStates implements SessionStates {
  readonly #states = new Map<string, SessionState>();

  of(key: string): SessionState {
    let state = this.#states.get(key);
    if (!state) {
      state = { results: new ResultStore(), approvals: new SessionApprovals(), toolboxes: new Map() };
      this.#states.set(key, state);
    }
    return state;
  }

  end(key: string): void {
    this.#states.delete(key);
  }

  get size(): number {
    return this.#states.size;
  }
}
