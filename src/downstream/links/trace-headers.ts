/**
 * The trace context of a request to a remote server in its HTTP headers as well (W3C Trace
 * Context: `traceparent`, `tracestate`, `baggage`), as in its `params._meta` (SEP-414): a proxy or
 * server that reads only the headers joins the same trace. Only a body that holds a `traceparent`
 * is parsed (with tracing off, none does); the values are those of the message's own `_meta`,
 * never of its arguments.
 */
import type { FetchLike } from "../../protocol/sdk.ts";

/** The `_meta` keys that go into headers of the same names, when they are strings. */
const CONTEXT_KEYS = ["traceparent", "tracestate", "baggage"] as const;
/**
 * What a header may hold: printable ASCII, within a bound. A client's `baggage` is passed on as it
 * came, and a value a header cannot carry must not fail the call: it stays in `_meta` only.
 */
const HEADER_VALUE = /^[\x20-\x7e]{1,8192}$/;

export function withTraceHeaders(inner: FetchLike): FetchLike {
  return (input, init) => {
    const body = init?.body;
    if (typeof body !== "string" || !body.includes('"traceparent"')) return inner(input, init);
    let meta: Record<string, unknown> | undefined;
    try {
      const params = (JSON.parse(body) as { params?: { _meta?: unknown } }).params;
      meta = typeof params?._meta === "object" && params._meta !== null ? params._meta as Record<string, unknown> : undefined;
    } catch {
      return inner(input, init);
    }
    const found = CONTEXT_KEYS.filter((key) => typeof meta?.[key] === "string" && HEADER_VALUE.test(meta[key] as string));
    if (found.length === 0) return inner(input, init);
    const headers = new Headers(init?.headers);
    // A header the server's configuration sets is left as it is.
    for (const key of found) if (!headers.has(key)) headers.set(key, meta![key] as string);
    return inner(input, { ...init, headers });
  };
}
