/**
 * MCP 2026-07-28 over Streamable HTTP: a request names its version, method and (for tools/call,
 * prompts/get, resources/read) its target in headers as well as in its body, and is cancelled by
 * ending its own POST. The SDK 1.32 transport knows neither, so both are done here, in its fetch,
 * for requests that carry the 2026-07-28 envelope; 2025-11-25 traffic passes untouched.
 */
import type { FetchLike, RequestId } from "../../protocol/sdk.ts";
import { claimedVersion, PROTOCOL_VERSION_KEY } from "../../protocol/wire.ts";

/** Which body field the Mcp-Name header mirrors, per method. */
const NAME_SOURCE: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};
const BASE64_PREFIX = "=?base64?";
const BASE64_SUFFIX = "?=";

/** The fetch, with the 2026-07-28 request headers, and each such request's POST abortable by id in `posts`. */
export function withEraHeaders(inner: FetchLike, posts: Map<RequestId, AbortController>): FetchLike {
  return async (input, init) => {
    const body = init?.body;
    // Only bodies with the envelope are parsed: 2025 traffic costs one substring search.
    if (typeof body !== "string" || !body.includes(PROTOCOL_VERSION_KEY)) return inner(input, init);
    let message: { id?: RequestId; method?: unknown; params?: Record<string, unknown> };
    try {
      message = JSON.parse(body);
    } catch {
      return inner(input, init);
    }
    const version = claimedVersion(message.params);
    if (version === undefined || typeof message.method !== "string" || message.id === undefined) return inner(input, init);
    const headers = new Headers(init?.headers);
    headers.set("mcp-protocol-version", version);
    headers.set("mcp-method", message.method);
    const field = Object.hasOwn(NAME_SOURCE, message.method) ? NAME_SOURCE[message.method] : undefined;
    const name = field === undefined ? undefined : message.params?.[field];
    if (typeof name === "string") headers.set("mcp-name", headerValue(name));
    const post = new AbortController();
    posts.set(message.id, post);
    const signal = init?.signal ? AbortSignal.any([init.signal, post.signal]) : post.signal;
    return inner(input, { ...init, headers, signal });
  };
}

/** A value that is not plain printable ASCII goes base64-encoded between the spec's markers. */
export function headerValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\x20-\x7e\t]*$/.test(value) &&
    !(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX));
  if (plain) return value;
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `${BASE64_PREFIX}${btoa(binary)}${BASE64_SUFFIX}`;
}
