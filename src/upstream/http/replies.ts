/**
 * The small answers of the HTTP endpoint: JSON-RPC errors with their HTTP status, and a response
 * body that says when it has been sent (or given up).
 */
import type { RequestId } from "../../protocol/sdk.ts";

/** The JSON-RPC error codes the endpoint answers with itself. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** What the SDK's transport answers for a session it does not know (404). */
export const SESSION_NOT_FOUND = -32001;
/** Refusals of the transport (bounds, methods), as the SDK's transport gives them. */
export const TRANSPORT_ERROR = -32000;

/** A request's response, the session or hub it was for, and whether it lasts until the client leaves. */
export interface Routed {
  response: Response;
  live?: { inFlight: number };
  lasting?: boolean;
}

export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: RequestId | null = null,
): Response {
  return wholeJson(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }), status, headers);
}

/**
 * A whole body this short counts as sent once it is handed to the runtime (see whenSent): what a
 * client that does not read its answers can leave with the runtime is this much per connection.
 * Counted in bytes: 60,000 CJK characters are 180,000 of them.
 */
export const WHOLE_BODY_BYTES = 64 * 1024;
const whole = new WeakSet<Response>();
const encoder = new TextEncoder();

/** A JSON response built whole here; a short one is sent as it is, never through a stream. */
export function wholeJson(text: string, status: number, headers: Record<string, string> = {}): Response {
  // Encoded here rather than by the Response, which would encode it all the same: its length is the bound's.
  const bytes = encoder.encode(text);
  const response = new Response(bytes, { status, headers: { "Content-Type": "application/json", ...headers } });
  if (bytes.length <= WHOLE_BODY_BYTES) whole.add(response);
  return response;
}

/**
 * The response with `done` called once its body has been sent whole or the client went away (at
 * once for a response without a body, or a short whole one of wholeJson's): an event stream is in
 * flight until then. (Asking a Response for its body makes a stream of it: the short ones are not asked.)
 */
export function whenSent(response: Response, done: () => void): Response {
  let called = false;
  const once = () => {
    if (!called) (called = true, done());
  };
  if (whole.has(response) || !response.body) {
    once();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          once();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        once();
      }
    },
    async cancel(reason) {
      once();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
