/**
 * A span: one timed operation of a trace (its kind, name, attributes, events, links, status and
 * times in nanoseconds), and the span that records nothing, which is all a disabled tracer gives.
 */
import { failureOf, isToolError, type Failure } from "./outcome.ts";
import { unixNanoOf } from "./clock.ts";
import { SAMPLED, type TraceContext } from "./trace-context.ts";

export type AttributeValue = string | number | boolean | readonly string[] | readonly number[] | readonly boolean[];
export type Attributes = Record<string, AttributeValue>;

/** OTLP's span kinds (the numbers are the wire's). */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];

/** OTLP's status codes: unset, ok, error. */
export const StatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const;
export type StatusCode = (typeof StatusCode)[keyof typeof StatusCode];

export interface SpanEvent {
  readonly name: string;
  /** performance.now() when it happened (clock.ts converts it). */
  readonly timeMs: number;
  readonly attributes: Attributes;
}

export interface SpanLink {
  readonly context: TraceContext;
  readonly attributes: Attributes;
}

/** Content attributes of the conventions, recorded only when `recordContent` is on. */
export const CONTENT_ATTRIBUTES = { arguments: "gen_ai.tool.call.arguments", result: "gen_ai.tool.call.result" } as const;

/** What every caller holds: a recording span, or NOOP_SPAN when tracing is off (every method then does nothing). */
export interface Span {
  /** False for NOOP_SPAN only: a caller may skip work whose only use is this span. */
  readonly recording: boolean;
  /** The span's place in its trace (for `_meta`, headers, the audit log); undefined for NOOP_SPAN. */
  readonly context: TraceContext | undefined;
  /** The `baggage` that came with the request this span serves, passed on to the requests it makes. */
  readonly baggage: string | undefined;
  /** Sets one attribute; undefined leaves it out. */
  setAttribute(key: string, value: AttributeValue | undefined): Span;
  addEvent(name: string, attributes?: Attributes): Span;
  addLink(context: TraceContext, attributes?: Attributes): Span;
  /** OK is final; UNSET changes nothing (the OpenTelemetry API's rule). */
  setStatus(code: StatusCode, message?: string): Span;
  /**
   * Records a tool call's arguments or result as JSON (`gen_ai.tool.call.arguments`/`.result`)
   * when `"telemetry": {"recordContent": true}`, after `mask` (the server's secrets); else nothing.
   */
  setContent(which: keyof typeof CONTENT_ATTRIBUTES, value: unknown, mask?: (json: string) => string): Span;
  /**
   * An INTERNAL span under this one, for a step of the workbench's own that takes time (a toolbox
   * opening, a server starting, an approval question); NOOP_SPAN under a span that is not traced.
   */
  child(name: string, attributes?: Attributes): Span;
  /** Ends the span with a result: one with `isError: true` makes it a `tool_error`. */
  end(result?: unknown): void;
  /** Ends the span with what was thrown: a JSON-RPC error's code, or the error's name, is its `error.type`. */
  fail(error: unknown): void;
}

/** The limits of one span (OTEL_SPAN_*_LIMIT, OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT). */
export interface SpanLimits {
  attributeCount: number;
  attributeValueLength: number;
  eventCount: number;
  linkCount: number;
}

/** Who made a span: the limits it keeps, whether content may be recorded, who is told when it ends. */
export interface SpanOwner {
  readonly limits: SpanLimits;
  readonly recordContent: boolean;
  ended(span: RecordingSpan): void;
  /** An INTERNAL span under `parent` (NOOP_SPAN when spans are not exported). */
  child(name: string, parent: RecordingSpan, attributes?: Attributes): Span;
}

function noop(this: Span): Span {
  return this;
}

/** The one span a disabled tracer hands out: frozen, shared, and every call on it does nothing. */
export const NOOP_SPAN: Span = Object.freeze({
  recording: false,
  context: undefined,
  baggage: undefined,
  setAttribute: noop,
  addEvent: noop,
  addLink: noop,
  setStatus: noop,
  setContent: noop,
  child: () => NOOP_SPAN,
  end() {},
  fail() {},
});

/** An MCP operation's span feeds the duration histogram of its side. */
export type Operation = "server" | "client";

const NONE: readonly never[] = Object.freeze([]);
const UNSET = Object.freeze({ code: StatusCode.UNSET });

export class RecordingSpan implements Span {
  readonly recording = true;
  /** Without a prototype: a key such as `__proto__` is an attribute like any other. */
  readonly #attributes: Attributes = Object.create(null);
  /**
   * What the request and its session say, made into attributes when they are first read or added
   * to (the export, the histogram, a caller's own): on the call's path a span costs its clock
   * reading, its ids and this closure (issue 50, "on within 2% of off").
   */
  #describe: ((span: RecordingSpan) => void) | undefined;
  /** While `#describe` runs: its attributes are the span's own, even after its end. */
  #describing = false;
  /** Shared empty lists until the first event or link: most spans have none, and each is made on the call's path. */
  events: readonly SpanEvent[] = NONE;
  links: readonly SpanLink[] = NONE;
  droppedAttributes = 0;
  #attributeCount = 0;
  droppedEvents = 0;
  droppedLinks = 0;
  status: { readonly code: StatusCode; readonly message?: string } = UNSET;
  /** performance.now() readings: 0 until ended. */
  readonly startMs = performance.now();
  endMs = 0;

  constructor(
    readonly owner: SpanOwner,
    readonly name: string,
    readonly kind: SpanKind,
    /** Undefined for a span kept only for its duration (metrics on, traces off): it is never exported nor propagated. */
    readonly context: TraceContext | undefined,
    /** The parent's context: a remote one came in a request, a local one is a span of ours. */
    readonly parent: TraceContext | undefined,
    readonly baggage: string | undefined,
    readonly operation?: Operation,
    describe?: (span: RecordingSpan) => void,
  ) {
    this.#describe = describe;
  }

  /** Every attribute, the described ones first. */
  get attributes(): Attributes {
    this.#described();
    return this.#attributes;
  }

  #described(): void {
    const describe = this.#describe;
    if (describe === undefined) return;
    this.#describe = undefined;
    this.#describing = true;
    try {
      describe(this);
    } finally {
      this.#describing = false;
    }
  }

  /** Traced, and its trace sampled: it goes to the collector. */
  get sampled(): boolean {
    return this.context !== undefined && (this.context.traceFlags & SAMPLED) !== 0;
  }

  get ended(): boolean {
    return this.endMs !== 0;
  }

  setAttribute(key: string, value: AttributeValue | undefined): Span {
    if (value === undefined || (this.ended && !this.#describing)) return this;
    this.#described();
    if (!Object.hasOwn(this.#attributes, key)) {
      if (this.#attributeCount >= this.owner.limits.attributeCount) {
        this.droppedAttributes++;
        return this;
      }
      this.#attributeCount++;
    }
    this.#attributes[key] = bounded(value, this.owner.limits.attributeValueLength);
    return this;
  }

  addEvent(name: string, attributes: Attributes = {}): Span {
    if (this.ended) return this;
    if (this.events.length >= this.owner.limits.eventCount) this.droppedEvents++;
    else (this.events === NONE ? (this.events = []) : this.events as SpanEvent[]).push({
      name,
      timeMs: performance.now(),
      attributes: boundedAll(attributes, this.owner.limits),
    });
    return this;
  }

  addLink(context: TraceContext, attributes: Attributes = {}): Span {
    if (this.ended) return this;
    if (this.links.length >= this.owner.limits.linkCount) this.droppedLinks++;
    else {
      const links = this.links === NONE ? (this.links = []) : this.links as SpanLink[];
      links.push({ context, attributes: boundedAll(attributes, this.owner.limits) });
    }
    return this;
  }

  setStatus(code: StatusCode, message?: string): Span {
    if (this.ended || code === StatusCode.UNSET || this.status.code === StatusCode.OK) return this;
    const described = code === StatusCode.ERROR && message !== undefined && message !== "";
    this.status = described ? { code, message: bounded(message, this.owner.limits.attributeValueLength) } : { code };
    return this;
  }

  setContent(which: keyof typeof CONTENT_ATTRIBUTES, value: unknown, mask?: (json: string) => string): Span {
    if (!this.owner.recordContent || value === undefined) return this;
    const json = JSON.stringify(value) ?? "null";
    return this.setAttribute(CONTENT_ATTRIBUTES[which], mask ? mask(json) : json);
  }

  child(name: string, attributes?: Attributes): Span {
    return this.context === undefined ? NOOP_SPAN : this.owner.child(name, this, attributes);
  }

  end(result?: unknown): void {
    if (this.ended) return;
    if (isToolError(result)) this.#failed({ type: "tool_error" });
    this.#close();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.#failed(failureOf(error));
    this.#close();
  }

  /** Seconds from start to end, for the duration histograms. */
  get durationSeconds(): number {
    return (this.endMs - this.startMs) / 1000;
  }

  get startTimeUnixNano(): bigint {
    return unixNanoOf(this.startMs);
  }

  get endTimeUnixNano(): bigint {
    return unixNanoOf(this.endMs);
  }

  #failed(failure: Failure): void {
    this.setAttribute("error.type", failure.type);
    this.setAttribute("rpc.response.status_code", failure.statusCode);
    // No message: the workbench's error texts can hold a path, an argument or a server's stderr.
    this.setStatus(StatusCode.ERROR);
  }

  #close(): void {
    // The monotonic clock never goes back; an end in the same instant is still an end.
    this.endMs = Math.max(performance.now(), this.startMs + 1e-6);
    this.owner.ended(this);
  }
}

/** A span as the exporters see it: ended, traced and sampled. */
export type ExportedSpan = RecordingSpan & { readonly context: TraceContext };

/** A string value cut to the length limit (by UTF-16 units, never splitting a surrogate pair); arrays item by item. */
function bounded<T extends AttributeValue>(value: T, limit: number): T {
  if (typeof value === "string") return cut(value, limit) as T;
  if (Array.isArray(value) && value.some((item) => typeof item === "string" && item.length > limit)) {
    return value.map((item) => (typeof item === "string" ? cut(item, limit) : item)) as unknown as T;
  }
  return value;
}

/**
 * `text` cut to `limit` UTF-16 units (never splitting a surrogate pair), as a string of its own: a
 * slice may keep the whole string it was cut from alive (a client's 4 MiB name behind 4096 characters).
 */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  return JSON.parse(JSON.stringify(text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit))) as string;
}

function boundedAll(attributes: Attributes, limits: SpanLimits): Attributes {
  const entries = Object.entries(attributes).slice(0, limits.attributeCount);
  return Object.fromEntries(entries.map(([key, value]) => [key, bounded(value, limits.attributeValueLength)]));
}
