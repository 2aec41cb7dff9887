/**
 * W3C Trace Context: the `traceparent` and `tracestate` values read and written, as they travel in
 * HTTP headers and in an MCP request's `params._meta` (SEP-414), and `baggage` carried as it came.
 */
import { isSpanId, isTraceId } from "./ids.ts";

/** Where a span sits in its trace: what `traceparent` and `tracestate` say, and what OTLP records. */
export interface TraceContext {
  readonly traceId: string;
  readonly spanId: string;
  /** The W3C flags byte; bit 0 is "sampled". */
  readonly traceFlags: number;
  /** The `tracestate` value, checked and in its list form (`k=v,k2=v2`). */
  readonly traceState?: string;
  /** True when the context came from another process (a parent or link read from a request). */
  readonly remote?: boolean;
}

export const SAMPLED = 0x01;

const VERSION = /^[0-9a-f]{2}$/;
const FLAGS = /^[0-9a-f]{2}$/;

/**
 * A `traceparent` value as a remote context, or undefined when it is not one (W3C Trace Context
 * level 2: version `ff` and all-zero ids are invalid; a later version may add fields after a `-`).
 */
export function parseTraceparent(value: unknown): TraceContext | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (text.length < 55 || text[2] !== "-" || text[35] !== "-" || text[52] !== "-") return undefined;
  const version = text.slice(0, 2);
  if (!VERSION.test(version) || version === "ff") return undefined;
  // Version 00 is exactly 55 characters; a later one may go on, after a dash.
  if (version === "00" ? text.length !== 55 : text.length > 55 && text[55] !== "-") return undefined;
  const traceId = text.slice(3, 35);
  const spanId = text.slice(36, 52);
  const flags = text.slice(53, 55);
  if (!isTraceId(traceId) || !isSpanId(spanId) || !FLAGS.test(flags)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16), remote: true };
}

/** The `traceparent` value of a context: version 00, the sampled flag alone (the one flag version 00 defines). */
export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags & SAMPLED ? "01" : "00"}`;
}

const MAX_MEMBERS = 32;
const SIMPLE_KEY = "[a-z][_0-9a-z\\-*/]{0,255}";
const TENANT_KEY = "[a-z0-9][_0-9a-z\\-*/]{0,240}@[a-z][_0-9a-z\\-*/]{0,13}";
const VALUE = "[\\x20-\\x2b\\x2d-\\x3c\\x3e-\\x7e]{0,255}[\\x21-\\x2b\\x2d-\\x3c\\x3e-\\x7e]";
const MEMBER = new RegExp(`^(${SIMPLE_KEY}|${TENANT_KEY})=(${VALUE})$`);

/**
 * A `tracestate` value checked (at most 32 `key=value` members, W3C keys and values, no key
 * twice) and written back without blanks and empty members; undefined when absent or invalid (the
 * whole value is dropped then, and `traceparent` still stands).
 */
export function parseTracestate(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const members: string[] = [];
  const keys = new Set<string>();
  for (const part of value.split(",")) {
    const member = part.trim();
    if (member === "") continue;
    const match = MEMBER.exec(member);
    if (!match || keys.has(match[1]!) || members.length === MAX_MEMBERS) return undefined;
    keys.add(match[1]!);
    members.push(member);
  }
  return members.length > 0 ? members.join(",") : undefined;
}

/** W3C Baggage allows 8192 bytes; a longer value is not passed on. */
export const MAX_BAGGAGE_CHARS = 8192;

/** A `baggage` value to pass on as it came (never read: the workbench adds nothing to it), or undefined. */
export function passBaggage(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_BAGGAGE_CHARS) return undefined;
  // Baggage is printable ASCII (values are percent-encoded): anything else could not go on in a header.
  return value.trim() === "" || /[^\x20-\x7e]/.test(value) ? undefined : value.trim();
}
