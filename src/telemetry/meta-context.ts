/**
 * The trace context of an MCP request: read from and written to `params._meta` (`traceparent`,
 * `tracestate`, `baggage`, unprefixed as SEP-414 and the conventions say), and to HTTP headers for
 * a remote server. Writing never changes the caller's objects: it makes new ones.
 */
import type { Span } from "./span.ts";
import { formatTraceparent, parseTraceparent, parseTracestate, passBaggage, type TraceContext } from "./trace-context.ts";

/** What came with a request: the remote parent (with its `tracestate`) and `baggage`, each when valid. */
export interface Propagated {
  readonly parent?: TraceContext;
  readonly baggage?: string;
}

const NOTHING: Propagated = Object.freeze({});

/** Reads `_meta` (the request's `params._meta` object). */
export function extractMeta(meta: unknown): Propagated {
  if (typeof meta !== "object" || meta === null) return NOTHING;
  const { traceparent, tracestate, baggage } = meta as Record<string, unknown>;
  return fromValues(traceparent, tracestate, baggage);
}

/** Reads a request's HTTP headers (for the link from an MCP span to the HTTP request that carried it). */
export function extractHeaders(headers: Pick<Headers, "get">): Propagated {
  return fromValues(headers.get("traceparent") ?? undefined, headers.get("tracestate") ?? undefined, headers.get("baggage") ?? undefined);
}

function fromValues(traceparent: unknown, tracestate: unknown, baggage: unknown): Propagated {
  const parent = parseTraceparent(traceparent);
  const state = parent && parseTracestate(tracestate);
  const passed = passBaggage(baggage);
  if (!parent && passed === undefined) return NOTHING;
  return {
    ...(parent && { parent: state ? { ...parent, traceState: state } : parent }),
    ...(passed !== undefined && { baggage: passed }),
  };
}

/**
 * The request's params with the span's context in `_meta`: `traceparent`, `tracestate` when it has
 * one (an older one is removed), `baggage` when it carries one; every other `_meta` key as it was.
 * The same params object, untouched, when the span has no context (tracing is off). `baggage: false`
 * leaves the span's baggage out (a request that serves no one client in particular).
 */
export function injectMeta<T extends object | undefined>(params: T, span: Span, options: { baggage?: boolean } = {}): WithMeta<T> {
  const context = span.context;
  if (!context) return params as WithMeta<T>;
  const given = (params as { _meta?: unknown } | undefined)?._meta;
  const old = typeof given === "object" && given !== null && !Array.isArray(given) ? given as Record<string, unknown> : {};
  const { tracestate: _stale, ...meta } = old;
  meta.traceparent = formatTraceparent(context);
  if (context.traceState) meta.tracestate = context.traceState;
  if (span.baggage !== undefined && options.baggage !== false) meta.baggage = span.baggage;
  return { ...params, _meta: meta } as WithMeta<T>;
}

/** Params as injectMeta gives them back: with `_meta` (absent only when tracing is off and there was none). */
export type WithMeta<T> = (T extends undefined ? unknown : T) & { _meta?: Record<string, unknown> };

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** `traceparent` (and `tracestate`, `baggage`) for an HTTP request to a remote server; none when tracing is off. */
export function traceHeaders(span: Span): Readonly<Record<string, string>> {
  const context = span.context;
  if (!context) return NO_HEADERS;
  // Assigned, not spread: this is made for every traced call to a server.
  const headers: Record<string, string> = { traceparent: formatTraceparent(context) };
  if (context.traceState) headers.tracestate = context.traceState;
  if (span.baggage !== undefined) headers.baggage = span.baggage;
  return headers;
}
