/**
 * OTLP/HTTP: one POST of an encoded request to the collector with `fetch`, bounded in time. It
 * never throws and never retries: the caller counts what failed and moves on (a collector that is
 * down must cost the workbench nothing but the lost data).
 */

export type OtlpProtocol = "http/protobuf" | "http/json";

/** Where one signal (traces or metrics) goes, and how. */
export interface OtlpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly protocol: OtlpProtocol;
  /** One request's time (OTEL_EXPORTER_OTLP_TIMEOUT). */
  readonly timeoutMs: number;
}

export type ExportOutcome = { ok: true } | { ok: false; reason: string };

export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** The collector's answer is read this far at most (a success body is a few bytes), then let go. */
const MAX_RESPONSE_BYTES = 64 * 1024;

const CONTENT_TYPES: Record<OtlpProtocol, string> = {
  "http/protobuf": "application/x-protobuf",
  "http/json": "application/json",
};

/** POSTs `body` within the shorter of `timeoutMs` and the target's own timeout, or until `abort` fires. */
export async function postOtlp(
  target: OtlpTarget,
  body: Uint8Array | string,
  timeoutMs: number,
  abort?: AbortSignal,
  send: Fetch = fetch,
): Promise<ExportOutcome> {
  const limitMs = Math.max(1, Math.min(timeoutMs, target.timeoutMs));
  // A timer of our own, cleared at the end: no timer outlives the request.
  const controller = new AbortController();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    controller.abort();
  }, limitMs);
  const stop = () => controller.abort();
  abort?.addEventListener("abort", stop);
  try {
    const response = await send(target.url, {
      method: "POST",
      headers: { ...target.headers, "content-type": CONTENT_TYPES[target.protocol] },
      body: body as BodyInit,
      signal: controller.signal,
      // A redirect would take the headers (a collector's key) to wherever it points: not followed.
      redirect: "manual",
    });
    await drain(response);
    if (response.ok) return { ok: true };
    if (response.status >= 300 && response.status < 400) {
      return { ok: false, reason: `HTTP ${response.status}, a redirect, not followed: set the endpoint to the address it names` };
    }
    return { ok: false, reason: `HTTP ${response.status}` };
  } catch (error) {
    if (late) return { ok: false, reason: `no answer within ${limitMs} ms` };
    if (abort?.aborted) return { ok: false, reason: "given up at shutdown" };
    return { ok: false, reason: scrubbed(error instanceof Error ? error.message : String(error), target.headers) };
  } finally {
    clearTimeout(timer);
    abort?.removeEventListener("abort", stop);
  }
}

/**
 * A runtime's words about a failed request, fit for the log: on one line, and without the
 * headers' names or values (a runtime's message may repeat a header it refused, and a header is
 * often a token).
 */
export function scrubbed(message: string, headers: Readonly<Record<string, string>>): string {
  let text = message.replace(/[\x00-\x1f\x7f]+/g, " ").slice(0, 500);
  const secrets = Object.entries(headers).flat().filter((part) => part.length >= 3).sort((a, b) => b.length - a.length);
  for (const secret of secrets) text = text.split(secret).join("***");
  return text;
}

/** Reads a little of the body so that the connection can be used again, and lets go of the rest. */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  try {
    while (read <= MAX_RESPONSE_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // A body cut off is no failure of the export: the status said how it went.
  }
}
