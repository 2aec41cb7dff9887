/**
 * A 2025-11-25 session's POSTs of one plain request, answered without the SDK's transport (issue
 * 42). The SDK's transport checks each message with zod (four passes per call), makes an event
 * stream and a keep-alive timer per request, and the answer then left as a stream of chunks: over
 * half the CPU of an echo served over HTTP. A request it would take as it is (a JSON-RPC request
 * with exactly `jsonrpc`, `id`, `method` and `params` of the right types, no `_meta`, not
 * `initialize`, with the Accept and protocol version the SDK asks for) is answered here the same
 * way: as plain JSON when its answer comes first, else on an event stream (pending-reply.ts).
 * Anything else goes to the SDK's transport as before, so every refusal keeps its wording.
 */
import { type JSONRPCMessage, type RequestId, SUPPORTED_PROTOCOL_VERSIONS } from "../../protocol/sdk.ts";
import type { MessageOrigin } from "../../transport/message-transport.ts";
import { PendingReply } from "./pending-reply.ts";
import { TRANSPORT_ERROR } from "./replies.ts";

/** The SDK's keep-alive of a request's event stream, and its headers. */
const KEEP_ALIVE_MS = 15_000;
const STREAM_HEADERS = { "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" };

type PlainRequest = { jsonrpc: "2.0"; id: RequestId; method: string; params?: Record<string, unknown> };

export class PlainRequests {
  readonly #deliver: (message: JSONRPCMessage, origin: MessageOrigin) => void;
  readonly #replies = new Map<RequestId, PendingReply>();
  #closed = false;

  constructor(deliver: (message: JSONRPCMessage, origin: MessageOrigin) => void) {
    this.#deliver = deliver;
  }

  /** The answer's response when the request is one this takes; undefined leaves it to the SDK's transport. */
  answer(request: Request, body: unknown, sessionId: string): Promise<Response> | undefined {
    if (this.#closed || !isPlainRequest(body) || this.#replies.has(body.id) || !acceptsBoth(request)) return undefined;
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
    const reply = new PendingReply({
      headers: { "mcp-session-id": sessionId },
      streamHeaders: STREAM_HEADERS,
      heartbeatMs: KEEP_ALIVE_MS,
      heartbeat: ": keepalive\n\n",
      // As the SDK's: a closed stream only loses the answer (the client cancels with notifications/cancelled).
      cancel: () => this.#replies.delete(body.id),
    });
    this.#replies.set(body.id, reply);
    this.#deliver(body as JSONRPCMessage, request);
    return reply.response;
  }

  /** A message of the session for one of these requests: its answer, or something before it; false: not one of ours. */
  took(message: JSONRPCMessage, related: RequestId | undefined): boolean {
    if (this.#replies.size === 0) return false;
    if ("id" in message && !("method" in message)) {
      const id = message.id as RequestId;
      const reply = this.#replies.get(id);
      if (!reply) return false;
      this.#replies.delete(id);
      reply.finish(message);
      return true;
    }
    const reply = related === undefined ? undefined : this.#replies.get(related);
    reply?.event(message);
    return reply !== undefined;
  }

  /** The client cancelled request `id`: its reply ends unanswered, and the id is free for a new request. */
  cancelled(id: RequestId): void {
    const reply = this.#replies.get(id);
    if (!reply) return;
    this.#replies.delete(id);
    reply.end();
  }

  /** The session ended: requests not answered get an error (the SDK's transport closed their streams). */
  close(): void {
    this.#closed = true;
    for (const [id, reply] of this.#replies) {
      reply.finish({
        jsonrpc: "2.0",
        id,
        error: { code: TRANSPORT_ERROR, message: "The session ended before the answer: send the request again in a new session" },
      });
    }
    this.#replies.clear();
  }
}

const KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/** What the SDK's JSONRPCRequestSchema takes unchanged, `_meta` aside (its progress token is routed by the SDK's way). */
function isPlainRequest(body: unknown): body is PlainRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  if (message.jsonrpc !== "2.0" || typeof message.method !== "string" || message.method === "initialize") return false;
  if (typeof message.id !== "string" && !Number.isSafeInteger(message.id)) return false;
  for (const key in message) if (!KEYS.has(key)) return false;
  const params = message.params;
  if (params === undefined) return true;
  if (typeof params !== "object" || params === null || Array.isArray(params)) return false;
  return !Object.hasOwn(params, "_meta") && !Object.hasOwn(params, "__proto__");
}

/** The SDK's own check: Accept names both, as a substring (Accept is a list). */
function acceptsBoth(request: Request): boolean {
  const accept = request.headers.get("accept");
  return accept !== null && accept.includes("application/json") && accept.includes("text/event-stream");
}
