/**
 * What the endpoint reads off a request before routing it (its path's scope, its media type, which
 * revision it speaks, an initialize) and the refusals it words when a bound is reached.
 */
import type { ClientIdentity } from "../client-identity.ts";
import { claimedVersion, DISCOVER_METHOD, MODERN_VERSION } from "../../protocol/wire.ts";
import { BODY_WAIT_MS, DEFAULT_MAX_WAITING } from "./body-budget.ts";
import { jsonRpcError, TRANSPORT_ERROR } from "./replies.ts";
import { parseScope } from "../access/scope.ts";

export const ENDPOINT_PATH = "/mcp";

/** `/mcp`: no scope; `/mcp/dev,docs`: those toolboxes; null: not the endpoint. */
export function scopeOfPath(path: string): string[] | undefined | null {
  if (path === ENDPOINT_PATH) return undefined;
  if (!path.startsWith(`${ENDPOINT_PATH}/`)) return null;
  let text: string;
  try {
    text = decodeURIComponent(path.slice(ENDPOINT_PATH.length + 1));
  } catch {
    return null;
  }
  return text.includes("/") ? null : parseScope(text) ?? null;
}

/**
 * A large body that found its client's line full, or waited its whole time in it. Retry-After 5: a
 * full line has at least a line of large calls before it, which a server takes seconds to read.
 */
export function tooManyBytes(who: ClientIdentity, why: "full" | "waited", maxWaiting: number): Response {
  const text = why === "full"
    ? `the line of requests waiting for them is full (${maxWaiting} for one client, ${DEFAULT_MAX_WAITING} for all)`
    : `this request waited ${BODY_WAIT_MS / 1000} s in the line for them`;
  return jsonRpcError(
    503,
    TRANSPORT_ERROR,
    `Service unavailable: client ${
      JSON.stringify(who.name)
    } has the most bytes of requests in flight and ${text}: retry once an answer came`,
    {
      "Retry-After": "5",
    },
  );
}

export function tooManySessions(max: number): Response {
  return jsonRpcError(
    503,
    TRANSPORT_ERROR,
    `Service unavailable: ${max} sessions are live, the most allowed: end one (DELETE) or try later`,
    { "Retry-After": "5" },
  );
}

/** `application/json`, parameters aside, as its essence: never a substring match (`text/plain; x=application/json`). */
export function isJson(contentType: string | null): boolean {
  return contentType?.split(";")[0].trim().toLowerCase() === "application/json";
}

export function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method === "initialize");
}

/** A request that speaks 2026-07-28: by its header, `server/discover`, or the `_meta` envelope. */
export function isModern(request: Request, body: unknown): boolean {
  if (request.headers.get("mcp-protocol-version") === MODERN_VERSION) return true;
  const message = body as { method?: unknown; params?: unknown } | null;
  return message?.method === DISCOVER_METHOD || claimedVersion(message?.params) !== undefined;
}
