/**
 * A tool the server runs only as a task (`execution.taskSupport: "required"`): a plain tools/call
 * would fail with "requires task augmentation", so the call goes through the SDK's task API. The
 * task is created, polled and its result fetched; each status the server reports counts as
 * progress (it restarts the call timeout and reaches the client as a progress notification), and
 * cancelling the call cancels the task. Tasks are not advertised upstream: the client sees one
 * ordinary call. While it runs, the call is in `calls` under its task id: the requests the server
 * makes for the task carry that id (related-task `_meta`) and are the call's.
 */
import { type CallToolResult, CallToolResultSchema, type Client, type Progress } from "../protocol/sdk.ts";
import { CallError, type CallFailure, type CallInFlight, type LaneCall } from "./call-lane.ts";
import { IdleClock, REAL_TIMERS, type Timers } from "./idle-clock.ts";
import { messageOf } from "../protocol/errors.ts";

export function requiresTask(tool: { execution?: { taskSupport?: string } } | undefined): boolean {
  return tool?.execution?.taskSupport === "required";
}

/** Calls the tool as a task and resolves with its result; fails with the lane's CallError kinds. */
export async function callAsTask(
  client: Client,
  call: LaneCall,
  timers: Timers = REAL_TIMERS,
  calls?: Set<CallInFlight>,
): Promise<CallToolResult> {
  if (call.signal?.aborted) throw new CallError({ kind: "cancelled", reason: call.signal.reason });
  const stop = new AbortController();
  const abandoned = new AbortController();
  let failure: CallFailure | undefined;
  let taskId: string | undefined;
  const fail = (reason: CallFailure) => {
    if (failure) return;
    failure = reason;
    stop.abort();
    abandoned.abort(reason.kind);
    // The server stops work nobody waits for.
    if (taskId !== undefined) void client.experimental.tasks.cancelTask(taskId).catch(() => {});
  };
  // Time the client spends answering the task's questions does not count toward the call timeout.
  const idle = new IdleClock(timers, call.idleTimeoutMs, () => fail({ kind: "idle-timeout" }), () => !failure);
  const { inFlight, known } = taskInFlight(call, abandoned.signal, idle);
  calls?.add(inFlight);
  const total = timers.set(() => fail({ kind: "max-time" }), call.maxTimeMs);
  const onAbort = () => fail({ kind: "cancelled", reason: call.signal?.reason });
  call.signal?.addEventListener("abort", onAbort, { once: true });
  const progressed = progressOf(call, idle);
  idle.restart();
  try {
    const stream = client.experimental.tasks.callToolStream(
      { name: call.name, arguments: call.arguments, ...(call.meta && { _meta: { ...call.meta } }) },
      CallToolResultSchema,
      {
        task: { ttl: call.maxTimeMs },
        signal: stop.signal,
        // Each request of the task (create, poll, result) waits at most the call timeout.
        timeout: call.idleTimeoutMs,
        onprogress: (progress) => progressed(progress.message),
      },
    );
    return await resultOf(stream, {
      failed: () => failure,
      created: (id, status) => {
        taskId = inFlight.taskId = id;
        known();
        progressed(status);
      },
      progressed,
    });
  } catch (error) {
    if (failure) throw new CallError(failure);
    throw error;
  } finally {
    calls?.delete(inFlight);
    known();
    idle.stop();
    timers.clear(total);
    call.signal?.removeEventListener("abort", onAbort);
  }
}

/** The call as the server's questions see it, and what settles its taskKnown. */
function taskInFlight(call: LaneCall, abandoned: AbortSignal, idle: IdleClock): { inFlight: CallInFlight; known: () => void } {
  let known!: () => void;
  const taskKnown = new Promise<void>((resolve) => (known = resolve));
  const hold = () => idle.hold();
  const inFlight = { relatedRequestId: call.relatedRequestId, upstream: call.upstream, abandoned, hold, questions: 0, taskKnown };
  return { inFlight, known };
}

/** What following a task's stream needs: the call's failure so far, and what to do with its news. */
interface Following {
  failed(): CallFailure | undefined;
  created(taskId: string, status?: string): void;
  progressed(status?: string): void;
}

/** The task's messages until its result: its creation and each status count as progress; an error is the server's. */
async function resultOf(stream: AsyncIterable<TaskMessage>, following: Following): Promise<CallToolResult> {
  for await (const message of stream) {
    if (following.failed()) break;
    if (message.type === "result") return message.result as CallToolResult;
    if (message.type === "error") throw new CallError({ kind: "remote", message: messageOf(message.error) });
    if (message.type === "taskCreated") following.created(message.task.taskId, message.task.statusMessage);
    else following.progressed(message.task.statusMessage);
  }
  throw new CallError(following.failed() ?? { kind: "closed" });
}

/** A message of the SDK's task stream, as far as the call reads it. */
type TaskMessage =
  | { type: "taskCreated" | "taskStatus"; task: { taskId: string; statusMessage?: string } }
  | { type: "result"; result: unknown }
  | { type: "error"; error: unknown };

/** Every sign of life of the task restarts the call timeout and reaches the client as progress, one counter so that it only goes up. */
function progressOf(call: LaneCall, idle: IdleClock): (message?: string) => void {
  let steps = 0;
  return (message) => {
    idle.restart();
    const progress: Progress = { progress: ++steps, ...(message !== undefined && { message }) };
    call.onProgress?.(progress);
  };
}
