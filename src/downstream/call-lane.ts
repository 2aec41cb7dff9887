/**
 * tools/call to a downstream server without the SDK Client on the way: the hot path of every
 * use_tool. The SDK checks each message against its zod schemas several times over (about half of
 * the workbench's CPU per call); here a result is matched to its request by id and passed on as it
 * is. The lane does what the SDK would: progress (which resets the idle time), a cap on the total
 * time, cancellation sent downstream, every pending call failed when the link ends.
 */
import { type CallToolResult, type JSONRPCMessage, McpError, type Progress, type RequestId } from "../protocol/sdk.ts";
import type { CallInput } from "../protocol/wire.ts";
import type { Upstream } from "../protocol/upstream.ts";
import { DeadlineSweep, REAL_TIMERS, type Timers } from "./idle-clock.ts";
import type { SignalSource } from "../transport/write-queue.ts";
import type { CallCancel } from "./call-cancel.ts";
import { paramsOf } from "./lane-params.ts";

export type CallFailure =
  /** The server's own error answer: its code and data are kept for the client (a -32042's URLs). */
  | { kind: "remote"; message: string; code?: number; data?: unknown }
  | { kind: "idle-timeout" }
  | { kind: "max-time" }
  | { kind: "cancelled"; reason: unknown }
  | { kind: "closed" };

export class CallError extends Error {
  constructor(readonly failure: CallFailure) {
    super(failure.kind === "remote" ? failure.message : failure.kind);
    this.name = "CallError";
  }
}

export interface LaneCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Time without an answer or progress before the call fails. */
  idleTimeoutMs: number;
  /** Time the call may take at all. */
  maxTimeMs: number;
  signal?: AbortSignal;
  /** The client's cancellation, watched in place of `signal` (no AbortSignal made for it). */
  cancel?: CallCancel;
  onProgress?: (progress: Progress) => void;
  /** The client's request this call serves (a use_tool call), for what the server asks meanwhile. */
  relatedRequestId?: RequestId;
  /** The session the call works for: what the server asks or logs meanwhile goes to it. */
  upstream?: Upstream;
  /** A 2026-07-28 server's call: the client's answers to its input requests, passed on as they came. */
  input?: CallInput;
  /** Trace context for `_meta` (traceparent...), when tracing is on. */
  meta?: Readonly<Record<string, string>>;
}

/** A call in flight, as a request the server makes meanwhile sees it. */
export interface CallInFlight {
  /** The id the call went to the server with (a lane call's); none for a task call. */
  readonly requestId?: RequestId;
  /** The task the server runs the call as, once it said which (a task call). */
  taskId?: string;
  /** A task call's: settles once it knows its task's id (or has ended without one). */
  readonly taskKnown?: Promise<void>;
  relatedRequestId?: RequestId;
  /** The session the call works for (none for a subcommand's call). */
  readonly upstream?: Upstream;
  /**
   * Aborted when the call is given up (cancelled, timed out, its connection closed), not when it
   * gets its answer: a request the server made meanwhile may be for other work.
   */
  abandoned: AbortSignal;
  /** Stops the idle timer until the returned release is called (time spent waiting on the client). */
  hold(): () => void;
  /** The server's questions related to this call that the client has not answered yet. */
  questions: number;
}

/** What a call in flight asks of its lane; `idleFrom`: its idle time starts over (a hold released, progress). */
interface LaneCore {
  fail(call: LaneInFlight, failure: CallFailure): void;
  idleFrom(call: LaneInFlight): void;
}

/**
 * A lane call: its deadlines (see DeadlineSweep), how it ends, what a server's request meanwhile
 * sees of it. `abandoned` is made when asked for (a call waiting for its turn, a request of the
 * server's): an AbortController per call was about 2% of the relay's CPU (issue 42). It listens to
 * the caller's signal itself (handleEvent). A class: V8 builds a literal with a getter slowly.
 */
class LaneInFlight implements CallInFlight {
  questions = 0;
  relatedRequestId: RequestId | undefined;
  readonly upstream: Upstream | undefined;
  /** The request went into the server's queue. */
  sent = false;
  /** When the call fails for silence (Infinity while held), and whatever it does. */
  idleAt: number;
  readonly totalAt: number;
  /** Holds not yet released: the idle time stands still while there are any. */
  holds = 0;
  #controller?: AbortController;
  #reason?: string;

  constructor(
    readonly requestId: string,
    readonly call: LaneCall,
    readonly resolve: (result: CallToolResult) => void,
    readonly reject: (error: CallError) => void,
    private readonly lane: LaneCore,
    now: number,
  ) {
    this.relatedRequestId = call.relatedRequestId;
    this.upstream = call.upstream;
    this.idleAt = now + call.idleTimeoutMs;
    this.totalAt = now + call.maxTimeMs;
  }

  get abandoned(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** The call was given up: the signal aborts now, or is made aborted. */
  abandon(reason: string): void {
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** Stops the idle time until the returned release is called; a second release does nothing. */
  hold(): () => void {
    this.holds++;
    this.idleAt = Infinity;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.lane.idleFrom(this);
    };
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.lane.fail(this, { kind: "cancelled", reason: this.call.cancel ? this.call.cancel.reason : this.call.signal?.reason });
  }
}

/** Our ids are strings with a prefix, so they never meet the SDK Client's numeric ids. */
const ID_PREFIX = "wb-";

/**
 * The server's queue, as a call sees it (issue 38): past its bound a call waits its turn (within
 * its own timeouts), and one given up while still queued is taken back, so the server never sees it.
 */
export interface LaneQueue {
  whenRoom?(go: () => void, signal: SignalSource): void;
  withdraw?(id: RequestId): boolean;
}

export class ToolCallLane {
  readonly #send: (message: JSONRPCMessage) => Promise<void>;
  readonly #pending = new Map<string, LaneInFlight>();
  #nextId = 1;
  #closed = false;
  readonly #deadlines: DeadlineSweep;
  readonly #queue: LaneQueue;
  readonly #core: LaneCore;

  constructor(send: (message: JSONRPCMessage) => Promise<void>, timers: Timers = REAL_TIMERS, queue: LaneQueue = {}) {
    this.#send = send;
    this.#queue = queue;
    this.#deadlines = new DeadlineSweep(timers, (now) => this.#sweep(now));
    this.#core = {
      fail: (call, failure) => this.#fail(call, failure),
      idleFrom: (call) => {
        if (!this.#pending.has(call.requestId)) return;
        call.idleAt = this.#deadlines.now() + call.call.idleTimeoutMs;
        this.#deadlines.due(call.idleAt);
      },
    };
  }

  call(call: LaneCall): Promise<CallToolResult> {
    if (this.#closed) return Promise.reject(new CallError({ kind: "closed" }));
    if ((call.cancel ?? call.signal)?.aborted) {
      return Promise.reject(new CallError({ kind: "cancelled", reason: (call.cancel ?? call.signal)!.reason }));
    }
    const id = `${ID_PREFIX}${this.#nextId++}`;
    return new Promise<CallToolResult>((resolve, reject) => {
      const inFlight = new LaneInFlight(id, call, resolve, reject, this.#core, this.#deadlines.now());
      this.#pending.set(id, inFlight);
      this.#deadlines.due(Math.min(inFlight.idleAt, inFlight.totalAt));
      if (call.cancel) call.cancel.watch(inFlight);
      else call.signal?.addEventListener("abort", inFlight);
      if (this.#queue.whenRoom) this.#queue.whenRoom(() => this.#go(inFlight), () => inFlight.abandoned);
      else this.#go(inFlight);
    });
  }

  #go(inFlight: LaneInFlight): void {
    inFlight.sent = true;
    const { call, requestId: id } = inFlight;
    this.#send({ jsonrpc: "2.0", id, method: "tools/call", params: paramsOf(call, id) }).catch(() =>
      this.#fail(inFlight, { kind: "closed" })
    );
  }

  /** Out of the pending calls; the last one out takes the timer with it. */
  #settle(inFlight: LaneInFlight): void {
    this.#pending.delete(inFlight.requestId);
    if (this.#pending.size === 0) this.#deadlines.stop();
    if (inFlight.call.cancel) inFlight.call.cancel.watch(undefined);
    else inFlight.call.signal?.removeEventListener("abort", inFlight);
  }

  #fail(inFlight: LaneInFlight, failure: CallFailure): void {
    const id = inFlight.requestId;
    if (this.#pending.get(id) !== inFlight) return;
    this.#settle(inFlight);
    // The server stops work nobody waits for; a closed connection has no one to tell, and a
    // call still waiting or queued is taken back before the server sees it.
    if (failure.kind !== "remote" && failure.kind !== "closed" && inFlight.sent && !this.#queue.withdraw?.(id)) this.#cancel(id, failure);
    if (failure.kind !== "remote") inFlight.abandon(failure.kind);
    inFlight.reject(new CallError(failure));
  }

  /** Fails the calls past a deadline (the earlier of the two, max-time on a tie); returns the next deadline. */
  #sweep(now: number): number {
    let next = Infinity;
    for (const inFlight of [...this.#pending.values()]) {
      const { idleAt, totalAt } = inFlight;
      if (totalAt <= now && totalAt <= idleAt) this.#fail(inFlight, { kind: "max-time" });
      else if (idleAt <= now) this.#fail(inFlight, { kind: "idle-timeout" });
      else next = Math.min(next, idleAt, totalAt);
    }
    return next;
  }

  /** Takes the responses and progress notifications of our calls; leaves everything else. */
  claim(message: JSONRPCMessage): boolean {
    if ("id" in message && !("method" in message)) {
      const pending = typeof message.id === "string" ? this.#pending.get(message.id) : undefined;
      if (!pending) return false;
      if ("result" in message) {
        this.#settle(pending);
        pending.resolve(message.result as CallToolResult);
      } else this.#fail(pending, { kind: "remote", ...answeredError(message) });
      return true;
    }
    if ("method" in message && message.method === "notifications/progress" && !("id" in message)) {
      const { progressToken, ...progress } = (message.params ?? {}) as Progress & { progressToken?: unknown };
      const pending = typeof progressToken === "string" ? this.#pending.get(progressToken) : undefined;
      if (!pending) return false;
      if (pending.holds === 0) this.#core.idleFrom(pending);
      pending.call.onProgress?.(progress);
      return true;
    }
    return false;
  }

  /** The calls still in flight, in the order they were sent: a request from the server may serve any. */
  inFlight(): CallInFlight[] {
    return [...this.#pending.values()];
  }

  /** The connection is gone: every pending call fails now rather than at its timeout. */
  close(): void {
    this.#closed = true;
    for (const pending of [...this.#pending.values()]) this.#fail(pending, { kind: "closed" });
  }

  #cancel(id: string, failure: CallFailure): void {
    const reason = failure.kind === "cancelled" ? String(failure.reason ?? "cancelled by the client") : failure.kind;
    this.#send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } }).catch(() => {});
  }
}

function answeredError(message: JSONRPCMessage): { message: string; code?: number; data?: unknown } {
  const error = (message as { error?: { message?: unknown; code?: unknown; data?: unknown } }).error;
  return {
    message: typeof error?.message === "string" ? error.message : "the server answered with an error",
    ...(typeof error?.code === "number" && { code: error.code }),
    ...(error?.data !== undefined && { data: error.data }),
  };
}

/**
 * The JSON-RPC error a server answered a call with, found behind what the call threw (the lane's
 * CallError, or the SDK's McpError for a task); undefined when the call failed otherwise.
 */
export function serverAnswer(error: unknown): { code: number; data?: unknown } | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof CallError) {
      const failure = cause.failure;
      return failure.kind === "remote" && failure.code !== undefined ? { code: failure.code, data: failure.data } : undefined;
    }
    if (cause instanceof McpError) return { code: cause.code, data: cause.data };
  }
  return undefined;
}
