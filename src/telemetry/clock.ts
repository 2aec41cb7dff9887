/**
 * The time of spans and metric points: nanoseconds since the Unix epoch, from the monotonic clock
 * (`performance.now()`) added to its origin, so that a span's duration never depends on the wall clock.
 */
// The origin to the microsecond: a double holds an epoch in ms with that much precision to spare.
const ORIGIN_NANOS = BigInt(Math.round(performance.timeOrigin * 1000)) * 1000n;

/** Now, in nanoseconds since the Unix epoch. */
export function nowUnixNano(): bigint {
  return ORIGIN_NANOS + BigInt(Math.round(performance.now() * 1e6));
}
