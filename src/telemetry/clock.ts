/**
 * The time of spans and metric points: nanoseconds since the Unix epoch, from the monotonic clock
 * (`performance.now()`) added to its origin, so that a span's duration never depends on the wall clock.
 */
// The origin to the microsecond: a double holds an epoch in ms with that much precision to spare.
// Taken at the first use, not at start-up (telemetry off never asks).
let originNanos: bigint | undefined;

/** Now, in nanoseconds since the Unix epoch. */
export function nowUnixNano(): bigint {
  return unixNanoOf(performance.now());
}

/**
 * A `performance.now()` reading in nanoseconds since the Unix epoch. Spans keep the plain reading
 * and are converted when exported: a BigInt at every start and end would cost each call.
 */
export function unixNanoOf(monotonicMs: number): bigint {
  originNanos ??= BigInt(Math.round(performance.timeOrigin * 1000)) * 1000n;
  return originNanos + BigInt(Math.round(monotonicMs * 1e6));
}
