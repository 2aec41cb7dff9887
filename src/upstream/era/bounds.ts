/**
 * What a 2026-07-28 client can make us keep or echo, bounded (issue 33): the version we repeat in
 * -32022, the `_meta` envelope we keep (clientCapabilities) or pass on (a server's requestState),
 * the listens and their URIs, and the results held for a retry. Each check says what was wrong.
 */
import { CLIENT_CAPABILITIES_KEY } from "../../protocol/wire.ts";

/** An unsupported protocolVersion is echoed in -32022 cut to this many characters. */
export const MAX_ECHOED_VERSION_CHARS = 64;
/** The clientCapabilities of a request, as JSON (kept for the session). */
export const MAX_CAPABILITIES_BYTES = 64 * 1024;
/** A server's requestState passed through (ours are about 60 characters). */
export const MAX_REQUEST_STATE_CHARS = 256 * 1024;
/** subscriptions/listen requests open at once on a connection. */
export const MAX_LISTENS = 64;
/** resourceSubscriptions in one listen. */
export const MAX_URIS_PER_LISTEN = 1_024;
/** Results held while the client holds the questions; past it the oldest is dropped. */
export const MAX_HELD_RESULTS = 256;

/** A client's value for an error message: at most MAX_ECHOED_VERSION_CHARS characters. */
export function clipped(value: string): string {
  return value.length > MAX_ECHOED_VERSION_CHARS ? `${value.slice(0, MAX_ECHOED_VERSION_CHARS - 3)}...` : value;
}

/** What is wrong with a request's envelope, or undefined when it is within the bounds. */
export function envelopeRefusal(params: unknown): string | undefined {
  const record = params as { _meta?: Record<string, unknown>; requestState?: unknown } | undefined;
  const capabilities = record?._meta?.[CLIENT_CAPABILITIES_KEY];
  if (capabilities !== undefined && jsonLongerThan(capabilities, MAX_CAPABILITIES_BYTES)) {
    return `Invalid params: _meta["${CLIENT_CAPABILITIES_KEY}"] is over the limit of ${MAX_CAPABILITIES_BYTES} bytes`;
  }
  const state = record?.requestState;
  if (typeof state === "string" && state.length > MAX_REQUEST_STATE_CHARS) {
    return `Invalid params: requestState is ${state.length} characters, over the limit of ${MAX_REQUEST_STATE_CHARS}`;
  }
  return undefined;
}

/** Whether the JSON of `value` is longer than `limit`, roughly, stopping as soon as it is. */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  let length = 0;
  const walk = (item: unknown): boolean => {
    if (typeof item === "string") length += item.length + 2;
    else if (typeof item !== "object" || item === null) length += 8;
    else if (Array.isArray(item)) {
      length += 2;
      for (const each of item) if (length > limit || walk(each)) return true;
    } else {
      length += 2;
      for (const key in item) if (length > limit || (length += key.length + 3, walk((item as Record<string, unknown>)[key]))) return true;
    }
    return length > limit;
  };
  return walk(value);
}
