/**
 * tools/call from the client without the SDK Server on the way: the other half of the hot path
 * (see src/downstream/call-lane.ts). The SDK checks each request with zod twice and each result once
 * more; here a well-formed tools/call goes straight to the dispatcher, which validates the meta-
 * tool's input with its own schema. Cancellation and progress work as with the SDK. Every other
 * request (initialize, tools/list, ping...) is left to the SDK Server.
 */
import { ErrorCode, type JSONRPCMessage, type Progress, type RequestId } from "../protocol/sdk.ts";
import { JsonRpcError, type ToolDispatcher } from "../tools/dispatcher.ts";
import type { ToolContext, ToolSession } from "../tools/tool.ts";
import type { CallRequest } from "../tools/pipeline/step.ts";
import { messageOf } from "../protocol/errors.ts";
import { CallCancel } from "../downstream/call-cancel.ts";
import type { Span } from "../telemetry/index.ts";

/** Where the lane takes its calls and sends its answers: the client's transport. */
export interface LaneTransport {
  claim?: (message: JSONRPCMessage) => boolean;
  send(message: JSONRPCMessage): Promise<void>;
}

/** What the session gives the intake once: its meta-tools' session, and what era its client speaks. */
export interface IntakeOptions {
  session: ToolSession;
  /** True when the client speaks 2026-07-28: a server's input_required may then go back to it as it is. */
  clientSpeaksModern?: () => boolean;
  /** A call came: what the session keeps lives on (see upstream/session-state.ts). */
  onCall?: () => void;
  /** The SERVER span of the client's request (telemetry on): the parent of the calls it makes. */
  spanOf?: (id: RequestId) => Span | undefined;
}

interface ToolCall {
  id: RequestId;
  name: string;
  arguments: unknown;
  progressToken?: string | number;
  /** A 2026-07-28 retry's answers for the server, passed on as they came. */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

export function serveToolCalls(transport: LaneTransport, dispatcher: ToolDispatcher, options: IntakeOptions): void {
  const { session, clientSpeaksModern, onCall, spanOf } = options;
  const running = new Map<RequestId, CallCancel>();

  async function serve(call: ToolCall): Promise<void> {
    // The client's cancellation: its AbortSignal is made only if something on the way asks for it.
    const cancel = new CallCancel();
    running.set(call.id, cancel);
    onCall?.();
    const send = (message: JSONRPCMessage) => transport.send(message).catch(() => {});
    let reply: JSONRPCMessage;
    const progress = progressSender(call.progressToken, send);
    try {
      const request = requestOf(call, cancel, progress.report, clientSpeaksModern?.() === true, spanOf?.(call.id));
      const ctx: ToolContext = { session, request };
      const result = await dispatcher.call(call.name, call.arguments, ctx);
      reply = { jsonrpc: "2.0", id: call.id, result };
    } catch (error) {
      const code = error instanceof JsonRpcError ? error.code : ErrorCode.InternalError;
      const data = error instanceof JsonRpcError ? error.data : undefined;
      reply = { jsonrpc: "2.0", id: call.id, error: { code, message: messageOf(error), ...(data !== undefined && { data }) } };
    } finally {
      // The id may have been cancelled and reused by a newer request by now: leave that one be.
      if (running.get(call.id) === cancel) running.delete(call.id);
    }
    const progressSent = progress.sent();
    if (progressSent) await progressSent;
    // A cancelled request gets no answer (the MCP spec), as the SDK would do. Not awaited: a call
    // whose answer waits for a client that does not read then holds nothing of its own.
    if (!cancel.aborted) void send(reply);
  }

  transport.claim = (message) => {
    const call = asToolCall(message);
    if (call && "invalid" in call) {
      const error = { code: ErrorCode.InvalidParams, message: `Invalid params: ${call.invalid}` };
      void transport.send({ jsonrpc: "2.0", id: call.id, error }).catch(() => {});
      return true;
    }
    if (call) {
      void serve(call);
      return true;
    }
    const cancelled = asCancellation(message);
    const cancel = cancelled && running.get(cancelled.requestId);
    if (!cancel) return false;
    cancel.abort(cancelled.reason ?? "cancelled by the client");
    return true;
  };
}

/** What the client's tools/call brings each step of its call (see tools/pipeline/step.ts). */
function requestOf(
  call: ToolCall,
  cancel: CallCancel,
  onProgress: ((progress: Progress) => void) | undefined,
  modern: boolean,
  span: Span | undefined,
): CallRequest {
  return {
    id: call.id,
    get signal() {
      return cancel.signal;
    },
    cancel,
    onProgress,
    // Only a 2026-07-28 client retries with answers: a 2025 call carries nothing more.
    input: modern ? { inputResponses: call.inputResponses, requestState: call.requestState, passInputRequired: true } : undefined,
    span,
  };
}

/**
 * Clients built on the MCP SDK handle a notification one microtask after a response read in the
 * same chunk, and by then the response has ended the request's progress handler: the last
 * progress would be dropped. A short pause after progress keeps the two in separate reads.
 */
const PAUSE_AFTER_PROGRESS_MS = 5;

const NO_PROGRESS = { report: undefined, sent: () => undefined };

/**
 * Progress for the client, in order and before the result: a client drops progress that comes
 * after the response it belongs to.
 */
function progressSender(
  token: string | number | undefined,
  send: (message: JSONRPCMessage) => Promise<unknown>,
): { report?: (progress: Progress) => void; sent: () => Promise<void> | undefined } {
  // The common call asks for no progress: it shares one object and makes no closures.
  if (token === undefined) return NO_PROGRESS;
  let sent: Promise<unknown> | undefined;
  const report = (progress: Progress) => {
    const message: JSONRPCMessage = {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { ...progress, progressToken: token },
    };
    sent = (sent ?? Promise.resolve()).then(() => send(message)).catch(() => {});
  };
  const settled = async () => {
    if (!sent) return;
    await sent;
    await new Promise((resolve) => setTimeout(resolve, PAUSE_AFTER_PROGRESS_MS));
  };
  return { report, sent: settled };
}

/** A tools/call request, or what is wrong with it; undefined for any other message. */
function asToolCall(message: JSONRPCMessage): ToolCall | { id: RequestId; invalid: string } | undefined {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined;
  const id = message.id;
  const params = message.params as Record<string, unknown> | undefined;
  if (typeof params !== "object" || params === null || typeof params.name !== "string") {
    return { id, invalid: "tools/call needs params.name, the name of a tool" };
  }
  const args = params.arguments;
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return { id, invalid: "params.arguments must be an object" };
  }
  const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (token !== undefined && typeof token !== "string" && typeof token !== "number") {
    return { id, invalid: "params._meta.progressToken must be a string or a number" };
  }
  const { inputResponses, requestState } = params;
  if (inputResponses !== undefined && (typeof inputResponses !== "object" || inputResponses === null || Array.isArray(inputResponses))) {
    return { id, invalid: "params.inputResponses must be an object" };
  }
  if (requestState !== undefined && typeof requestState !== "string") return { id, invalid: "params.requestState must be a string" };
  return {
    id,
    name: params.name,
    arguments: args,
    progressToken: token,
    inputResponses: inputResponses as Record<string, unknown> | undefined,
    requestState,
  };
}

function asCancellation(message: JSONRPCMessage): { requestId: RequestId; reason?: string } | undefined {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return undefined;
  const params = message.params as { requestId?: unknown; reason?: unknown } | undefined;
  const id = params?.requestId;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  return { requestId: id, reason: typeof params?.reason === "string" ? params.reason : undefined };
}
