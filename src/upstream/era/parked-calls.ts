/**
 * A 2026-07-28 client takes no requests from us: a server behind us that asks something during a
 * call (elicitation, sampling, roots, the 2025 way) is answered through the call instead. The
 * client's call gets an `input_required` result with the questions; the client retries the call
 * with the answers and our `requestState`; the answers go to the server, and the call's result,
 * when it comes, answers the retry. The call behind us runs on all along: it is parked, not redone.
 */
import { ErrorCode, type JSONRPCMessage, type RequestId } from "../../protocol/sdk.ts";
import type { InputRequest } from "../../protocol/wire.ts";
import { clipped, MAX_HELD_RESULTS } from "./bounds.ts";

/** A result held for a retry that never comes is dropped after this long. */
const HELD_RESULT_MS = 5 * 60_000;
const STATE_PREFIX = "mcp-workbench/parked/";

/** A requestState of ours, known or not (a call over, a process started since). */
export function isParkedState(state: unknown): boolean {
  return typeof state === "string" && state.startsWith(STATE_PREFIX);
}

interface Question {
  request: InputRequest;
  asked: boolean;
  resolve: (result: Record<string, unknown>) => void;
  reject: (reason: unknown) => void;
}

interface Parked {
  /** The client's first request for the call: the lane answers this id. */
  readonly original: RequestId;
  readonly state: string;
  /** Where the next answer goes; undefined while the client has the questions and no retry has come. */
  replyTo: RequestId | undefined;
  readonly questions: Map<string, Question>;
  /** The call's answer, come while the client had not retried yet. */
  held?: JSONRPCMessage;
  /** Drops `held` if no retry comes for it. */
  heldTimer?: ReturnType<typeof setTimeout>;
  flushing: boolean;
}

export class ParkedCalls {
  readonly #send: (message: JSONRPCMessage) => void;
  readonly #byOriginal = new Map<RequestId, Parked>();
  readonly #byState = new Map<string, Parked>();
  readonly #byReply = new Map<RequestId, Parked>();
  /** The tool of each call in flight (tools/call), which a retry must name again. */
  readonly #tools = new Map<RequestId, string>();
  /** Calls holding a result for a retry, oldest first. */
  readonly #holding = new Set<Parked>();
  #asked = 0;

  constructor(send: (message: JSONRPCMessage) => void) {
    this.#send = send;
  }

  /**
   * Asks the client, within its call `callId`, and gives the answer it sends with its retry. The
   * question's key names the server that asks (`from`), where it is given.
   */
  ask(callId: RequestId, request: InputRequest, signal?: AbortSignal, from?: string): Promise<Record<string, unknown>> {
    let parked = this.#byOriginal.get(callId);
    if (!parked) {
      parked = { original: callId, state: `${STATE_PREFIX}${crypto.randomUUID()}`, replyTo: callId, questions: new Map(), flushing: false };
      this.#byOriginal.set(callId, parked);
      this.#byState.set(parked.state, parked);
    }
    const key = from === undefined ? `input-${++this.#asked}` : `${from}/input-${++this.#asked}`;
    const owner = parked;
    return new Promise((resolve, reject) => {
      const forget = () => {
        owner.questions.delete(key);
        reject(signal?.reason ?? new Error("Cancelled"));
      };
      if (signal?.aborted) return forget();
      signal?.addEventListener("abort", forget, { once: true });
      const done = () => signal?.removeEventListener("abort", forget);
      owner.questions.set(key, {
        request,
        asked: false,
        resolve: (result) => (done(), resolve(result)),
        reject: (reason) => (done(), reject(reason)),
      });
      this.#flushSoon(owner);
    });
  }

  /** Remembers which tool a call (a tools/call request) is for, for its retries. */
  noteTool(id: RequestId, params: unknown): void {
    this.#tools.set(id, toolOf(params));
  }

  /**
   * What is wrong with a retry of one of our calls, or undefined (for a good one, and for any
   * request that is no retry of ours): another tool than its call's, an id a retry in flight
   * already has, or an answer that is not an object.
   */
  refusal(message: JSONRPCMessage): string | undefined {
    if (!("id" in message) || !("method" in message)) return undefined;
    const params = message.params as { requestState?: unknown; inputResponses?: unknown } | undefined;
    const parked = typeof params?.requestState === "string" ? this.#byState.get(params.requestState) : undefined;
    if (!parked) return undefined;
    const expected = this.#tools.get(parked.original);
    const tool = toolOf(params);
    if (expected !== undefined && tool !== expected) {
      return `Invalid params: requestState belongs to a call of ${expected}, not of ${clipped(tool)}`;
    }
    if (this.#byReply.has(message.id)) {
      return `Invalid params: id ${clipped(JSON.stringify(message.id))} is already in use by a retry in flight`;
    }
    return answersRefusal(params?.inputResponses);
  }

  /** Takes a retry that carries one of our states; false for any other request. */
  retry(message: JSONRPCMessage): boolean {
    if (!("id" in message) || !("method" in message)) return false;
    const params = message.params as { requestState?: unknown; inputResponses?: unknown } | undefined;
    const parked = typeof params?.requestState === "string" ? this.#byState.get(params.requestState) : undefined;
    if (!parked) return false;
    if (parked.replyTo !== undefined) {
      // A retry still waiting is answered now, or it never would be.
      this.#byReply.delete(parked.replyTo);
      const error = { code: ErrorCode.InvalidRequest, message: "Invalid request: a later retry of this call took its place" };
      this.#send({ jsonrpc: "2.0", id: parked.replyTo, error });
    }
    parked.replyTo = message.id;
    this.#byReply.set(message.id, parked);
    const responses = params?.inputResponses;
    for (const [key, question] of [...parked.questions]) {
      const response = typeof responses === "object" && responses !== null ? (responses as Record<string, unknown>)[key] : undefined;
      if (typeof response !== "object" || response === null) {
        question.asked = false;
        continue;
      }
      parked.questions.delete(key);
      question.resolve(response as Record<string, unknown>);
    }
    if (parked.held) {
      const held = parked.held;
      parked.held = undefined;
      this.#answer(parked, held);
    } else {
      this.#flushSoon(parked);
    }
    return true;
  }

  /** A cancellation of a retry is one of the call: the lane knows it by its first id. */
  cancelled(message: JSONRPCMessage): JSONRPCMessage {
    const params = (message as { params?: { requestId?: RequestId } }).params;
    const id = params?.requestId;
    const parked = id === undefined ? undefined : this.#byReply.get(id) ?? this.#byOriginal.get(id);
    if (!parked) {
      if (id !== undefined) this.#tools.delete(id);
      return message;
    }
    for (const question of parked.questions.values()) question.reject(new Error("The client cancelled the call"));
    parked.questions.clear();
    this.#forget(parked);
    return { ...message, params: { ...params, requestId: parked.original } } as JSONRPCMessage;
  }

  /** The lane's answer to a call: sent to the latest retry, held until one comes, or as it is. */
  answer(message: JSONRPCMessage): JSONRPCMessage | undefined {
    const id = (message as { id?: RequestId }).id;
    const parked = id === undefined ? undefined : this.#byOriginal.get(id);
    if (!parked) {
      if (id !== undefined) this.#tools.delete(id);
      return message;
    }
    for (const question of parked.questions.values()) question.reject(new Error("The call ended"));
    parked.questions.clear();
    if (parked.replyTo === undefined) {
      parked.held = message;
      parked.heldTimer = setTimeout(() => this.#forget(parked), HELD_RESULT_MS);
      this.#hold(parked);
      return undefined;
    }
    this.#forget(parked);
    return { ...message, id: parked.replyTo } as JSONRPCMessage;
  }

  #answer(parked: Parked, message: JSONRPCMessage): void {
    const reply = this.answer(message);
    if (reply) this.#send(reply);
  }

  /** Questions asked together go in one result: they are collected for a tick. */
  #flushSoon(parked: Parked): void {
    if (parked.flushing) return;
    parked.flushing = true;
    setTimeout(() => {
      parked.flushing = false;
      const open = [...parked.questions].filter(([, question]) => !question.asked);
      if (open.length === 0 || parked.replyTo === undefined) return;
      const inputRequests: Record<string, InputRequest> = {};
      for (const [key, question] of parked.questions) {
        question.asked = true;
        inputRequests[key] = question.request;
      }
      const replyTo = parked.replyTo;
      this.#byReply.delete(replyTo);
      parked.replyTo = undefined;
      this.#send({
        jsonrpc: "2.0",
        id: replyTo,
        result: { resultType: "input_required", inputRequests, requestState: parked.state },
      } as JSONRPCMessage);
    }, 0);
  }

  /** A result held for a retry counts against MAX_HELD_RESULTS; past it the oldest is dropped. */
  #hold(parked: Parked): void {
    this.#holding.add(parked);
    if (this.#holding.size <= MAX_HELD_RESULTS) return;
    const [oldest] = this.#holding;
    this.#forget(oldest);
  }

  #forget(parked: Parked): void {
    clearTimeout(parked.heldTimer);
    this.#holding.delete(parked);
    this.#tools.delete(parked.original);
    this.#byOriginal.delete(parked.original);
    this.#byState.delete(parked.state);
    if (parked.replyTo !== undefined) this.#byReply.delete(parked.replyTo);
  }
}

/** The tool a tools/call names: use_tool's with the tool it uses. */
function toolOf(params: unknown): string {
  const { name, arguments: args } = (params ?? {}) as { name?: unknown; arguments?: { tool?: Record<string, unknown> } };
  const used = args?.tool;
  const inner = name === "use_tool" && typeof used === "object" && used !== null
    ? ` (${JSON.stringify([used.toolbox, used.server, used.name])})`
    : "";
  return `${JSON.stringify(name)}${inner}`;
}

/** Each answer to a question is an object (an elicitation's or a sampling's result). */
function answersRefusal(responses: unknown): string | undefined {
  if (responses === undefined) return undefined;
  if (typeof responses !== "object" || responses === null || Array.isArray(responses)) {
    return "Invalid params: inputResponses must be an object";
  }
  for (const [key, response] of Object.entries(responses)) {
    if (Array.isArray(response)) {
      return `Invalid params: inputResponses[${clipped(JSON.stringify(key))}] is an array: an answer is an object`;
    }
  }
  return undefined;
}
