/**
 * Which call a server's request (elicitation, sampling, roots) or log message belongs to. Where the
 * protocol says, that is certain: a task's requests carry its related-task `_meta`; over HTTP a
 * request that came on the stream of a call's own POST is that call's; a 2026-07-28 server's
 * questions come in the call's own result. Over a 2025-11-25 stdio link nothing says which call
 * asked: a question then goes to the oldest call that carries none yet, so that each waiting call
 * gets an answer of its own and none waits on another's retry.
 */
import type { RequestId } from "../protocol/sdk.ts";
import type { CallInFlight } from "./call-lane.ts";

/** The `_meta` key that relates a request or notification to a task (MCP 2025-11-25). */
export const RELATED_TASK_KEY = "io.modelcontextprotocol/related-task";

/** A server's calls as the relay sees them. */
export interface ServerCalls {
  /** The calls to the server still in flight, in the order they were sent. */
  inFlight(): readonly CallInFlight[];
  /** The request of ours the server's request `id` was made within, where the link knows it. */
  askedFor(id: RequestId): RequestId | undefined;
}

/** What the server sent: its request's id (none for a notification) and its params' `_meta`. */
export interface FromServer {
  id?: RequestId;
  meta?: unknown;
}

/** The call a server's request goes with (none: it belongs to no call), and whether that was a choice. */
export interface Owner {
  call?: CallInFlight;
  /** Nothing said which call asked: the question may go with another call if this one ends first. */
  guessed: boolean;
}

/**
 * The call a server's request belongs to. A request the link or its `_meta` places outside every
 * call in flight is not guessed into one. Asked once per request (the link forgets what it said).
 */
export function questionOwner(request: FromServer, calls: ServerCalls): Owner {
  const known = knownOwner(request, calls);
  return known === "unknown" ? { call: guessedOwner(calls), guessed: true } : { call: known, guessed: false };
}

/**
 * Nothing says which call asked: the oldest that carries no question, else the one with the
 * fewest; among the calls `among` admits, where given (those of one session).
 */
export function guessedOwner(calls: ServerCalls, among?: (call: CallInFlight) => boolean): CallInFlight | undefined {
  let owner: CallInFlight | undefined;
  for (const call of calls.inFlight()) {
    if (among && !among(call)) continue;
    if (!owner || call.questions < owner.questions) owner = call;
  }
  return owner;
}

/**
 * The call a server's notification (a log message) belongs to, where that is known or there is
 * only one call; a notification answers nothing, so it is not guessed among several. The one call
 * in flight is taken even when the server has several sessions: what a server logs during a call
 * most likely tells of that call, and is then not shown to a session that did not make it.
 */
export function notificationOwner(notification: FromServer, calls: ServerCalls): CallInFlight | undefined {
  const known = knownOwner(notification, calls);
  if (known !== "unknown") return known;
  const inFlight = calls.inFlight();
  return inFlight.length === 1 ? inFlight[0] : undefined;
}

/** The owner the task `_meta` or the link names (undefined: none in flight), or "unknown". */
function knownOwner({ id, meta }: FromServer, calls: ServerCalls): CallInFlight | undefined | "unknown" {
  const taskId = relatedTaskId(meta);
  if (taskId !== undefined) {
    // A task call learns its id from the answer that creates the task, which may be read after this:
    // the one task call still waiting for it is the one; with several, nothing says which.
    const inFlight = calls.inFlight();
    const known = inFlight.find((call) => call.taskId === taskId);
    if (known) return known;
    const waiting = inFlight.filter((call) => call.requestId === undefined && call.taskId === undefined);
    return waiting.length === 1 ? waiting[0] : waiting.length > 1 ? "unknown" : undefined;
  }
  const within = id === undefined ? undefined : calls.askedFor(id);
  if (within !== undefined) return calls.inFlight().find((call) => call.requestId === within);
  return "unknown";
}

/**
 * Resolves once a task's question can be placed: a call holds its task's id, or fewer than two task
 * calls still wait to learn theirs (then knownOwner decides), or after `waitMs`. The answer that
 * creates a task is read before the task's first question but learned by its call a few turns
 * later; with two task calls waiting, deciding at once was a guess (it gave the second call's
 * question to the first, and the second call waited for ever: 2 runs in 40).
 */
export async function taskPlaced(meta: unknown, calls: ServerCalls, waitMs: number): Promise<void> {
  const taskId = relatedTaskId(meta);
  if (taskId === undefined) return;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const inFlight = calls.inFlight();
    if (inFlight.some((call) => call.taskId === taskId)) return;
    const waiting = inFlight.filter((call) => call.requestId === undefined && call.taskId === undefined);
    const left = deadline - Date.now();
    if (waiting.length < 2 || left <= 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, left)));
    await Promise.race([expired, ...waiting.map((call) => call.taskKnown ?? expired)]);
    clearTimeout(timer);
  }
}

/** The task a request's or notification's `_meta` relates it to, if any. */
export function relatedTaskId(meta: unknown): string | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const related = (meta as Record<string, unknown>)[RELATED_TASK_KEY];
  const taskId = typeof related === "object" && related !== null ? (related as { taskId?: unknown }).taskId : undefined;
  return typeof taskId === "string" ? taskId : undefined;
}
