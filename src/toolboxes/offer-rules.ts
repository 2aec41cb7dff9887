/**
 * The two decisions every read of a session's offer takes, made here once: whether a server's lists
 * are its live ones or the listing cache's, and when the lock is read again.
 */
import { CALL_RECHECK_MS } from "./pin-store.ts";
import type { ServerSlot } from "./server-slot.ts";
import type { SharedServer } from "./shared-server.ts";

/**
 * Live or cached: a server that listed in this process (running, or stopped for being idle after
 * it did) is offered from its own lists; any other from the listing cache.
 */
export function listedHere(shared: SharedServer): boolean {
  return shared.live || shared.listing !== undefined;
}

/**
 * When the lock is read again for what a session is shown or calls: when it was read more than
 * CALL_RECHECK_MS ago (an approval made a moment ago counts); a running server's lists seen for
 * the first time are pinned then. Undefined (no promise, issue 42) when there is nothing to do.
 */
export function judged(slot: ServerSlot): Promise<void> | undefined {
  if (slot.trusted(CALL_RECHECK_MS)) return undefined;
  return slot.serverSession ? slot.trust(CALL_RECHECK_MS) : slot.lockRead(CALL_RECHECK_MS);
}
