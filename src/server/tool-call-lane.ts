/**
 * tools/call from the client without the SDK Server on the way: the other half of the hot path
 * (see src/toolbox/call-lane.ts). The SDK checks each request with zod twice and each result once
 * more; here a well-formed tools/call goes straight to the dispatcher, which validates the meta-
 * tool's input with its own schema. Cancellation and progress work as with the SDK. Anything the
 * lane does not recognise is left to the SDK Server, which answers it as before.
 */
import { ErrorCode, type JSONRPCMessage, McpError, type Progress, type RequestId } from "../sdk.ts";
import type { StreamTransport } from "../transport/stream-transport.ts";
import type { ToolDispatcher } from "../tools/dispatcher.ts";
import type { ToolContext } from "../tools/tool.ts";

export type SharedContext = Omit<ToolContext, "signal" | "onProgress">;

interface ToolCall {
  id: RequestId;
  name: string;
  arguments: unknown;
  progressToken?: string | number;
}

export function serveToolCalls(transport: StreamTransport, dispatcher: ToolDispatcher, context: SharedContext): void {
  const running = new Map<RequestId, AbortController>();

  async function serve(call: ToolCall): Promise<void> {
    const controller = new AbortController();
    running.set(call.id, controller);
    const send = (message: JSONRPCMessage) => transport.send(message).catch(() => {});
    let reply: JSONRPCMessage;
    const progress = progressSender(call.progressToken, send);
    try {
      const result = await dispatcher.call(call.name, call.arguments, {
        ...context,
        signal: controller.signal,
        onProgress: progress.report,
      });
      reply = { jsonrpc: "2.0", id: call.id, result };
    } catch (error) {
      const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
      reply = { jsonrpc: "2.0", id: call.id, error: { code, message: messageOf(error) } };
    } finally {
      running.delete(call.id);
    }
    await progress.sent();
    // A cancelled request gets no answer (the MCP spec), as the SDK would do.
    if (!controller.signal.aborted) await send(reply);
  }

  transport.claim = (message) => {
    const call = asToolCall(message);
    if (call) {
      void serve(call);
      return true;
    }
    const cancelled = asCancellation(message);
    const controller = cancelled && running.get(cancelled.requestId);
    if (!controller) return false;
    controller.abort(cancelled.reason ?? "cancelled by the client");
    return true;
  };
}

/**
 * Progress for the client, in order and before the result: a client drops progress that comes
 * after the response it belongs to.
 */
export function progressSender(
  token: string | number | undefined,
  send: (message: JSONRPCMessage) => Promise<unknown>,
) {
  let sent: Promise<unknown> = Promise.resolve();
  const report = token === undefined ? undefined : (progress: Progress) => {
    const message: JSONRPCMessage = {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { ...progress, progressToken: token },
    };
    sent = sent.then(() => send(message)).catch(() => {});
  };
  return { report, sent: () => sent };
}

function asToolCall(message: JSONRPCMessage): ToolCall | undefined {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined;
  const params = message.params as Record<string, unknown> | undefined;
  if (typeof params !== "object" || params === null || typeof params.name !== "string") return undefined;
  const args = params.arguments;
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) return undefined;
  const meta = params._meta as { progressToken?: unknown } | undefined;
  const token = meta?.progressToken;
  if (token !== undefined && typeof token !== "string" && typeof token !== "number") return undefined;
  return { id: message.id, name: params.name, arguments: args, progressToken: token };
}

function asCancellation(message: JSONRPCMessage): { requestId: RequestId; reason?: string } | undefined {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return undefined;
  const params = message.params as { requestId?: unknown; reason?: unknown } | undefined;
  const id = params?.requestId;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  return { requestId: id, reason: typeof params?.reason === "string" ? params.reason : undefined };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
