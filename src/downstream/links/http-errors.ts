/** How a remote server's HTTP errors are read: a JSON-RPC error in the body, a status, a network failure. */
import { StreamableHTTPError } from "../../protocol/sdk-remote.ts";
import { messageOf } from "../../protocol/errors.ts";

export interface JsonRpcErrorBody {
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

/** The JSON-RPC error an HTTP error status carried in its body, if it was one (the SDK puts the body in its message). */
export function jsonRpcErrorOf(error: unknown): JsonRpcErrorBody | undefined {
  if (!(error instanceof StreamableHTTPError)) return undefined;
  const marker = "Error POSTing to endpoint: ";
  const text = messageOf(error);
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text.slice(at + marker.length));
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || (body as { jsonrpc?: unknown }).jsonrpc !== "2.0") return undefined;
  const { id, error: inner } = body as { id?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (typeof inner !== "object" || inner === null || typeof inner.code !== "number" || typeof inner.message !== "string") return undefined;
  const validId = typeof id === "string" || typeof id === "number" ? id : null;
  return { id: validId, error: { code: inner.code, message: inner.message, ...(inner.data !== undefined && { data: inner.data }) } };
}

export function isStatus(error: unknown, statuses: Set<number>): boolean {
  return error instanceof StreamableHTTPError && error.code !== undefined && statuses.has(error.code);
}

/** fetch rejects with a TypeError when it gets no HTTP answer at all (refused, reset, DNS). */
export function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError || /ECONNREFUSED|ECONNRESET|connection refused|Unable to connect/i.test(messageOf(error));
}
