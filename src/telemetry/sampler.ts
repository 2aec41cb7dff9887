/**
 * The sampling decision (OTEL_TRACES_SAMPLER, settings.ts): whether a span's trace goes to the
 * collector, written into the W3C flags it carries and passes on. A span that is not sampled is
 * still timed (the duration histograms count every request) and still passes its context on, with
 * the sampled flag clear, so that the servers behind the workbench make the same decision.
 */
import type { Sampler } from "./sampler-settings.ts";
import { SAMPLED, type TraceContext } from "./trace-context.ts";

/** 2^52: the trace id's randomness is compared in 52 bits, which a double holds exactly. */
const SCALE = 2 ** 52;

/**
 * The flags of a new span in trace `traceId` under `parent` (none: a new trace). Parent-based, a
 * parent's decision stands; otherwise the trace id decides, so that every span of one trace is
 * decided alike, here and in any process that samples as OpenTelemetry's consistent probability
 * sampling does (not every SDK's older `traceidratio`).
 */
export function sampledFlags(sampler: Sampler, traceId: string, parent: TraceContext | undefined): number {
  if (parent && sampler.parentBased) return parent.traceFlags & SAMPLED;
  const ratio = sampler.ratio;
  if (ratio >= 1) return SAMPLED;
  if (ratio <= 0) return 0;
  return sampledByRatio(traceId, ratio) ? SAMPLED : 0;
}

/**
 * TraceIdRatioBased: sampled when the trace id's random part is at or above `(1 - ratio)` of its
 * range. The random part is the id's last 56 bits (W3C Trace Context level 2 makes them random;
 * OpenTelemetry's consistent probability sampling reads the same bits); their top 52 are compared.
 * A trace sampled at one ratio is sampled at every greater one.
 */
export function sampledByRatio(traceId: string, ratio: number): boolean {
  const random = parseInt(traceId.slice(18, 31), 16);
  return random >= Math.ceil((1 - ratio) * SCALE);
}
