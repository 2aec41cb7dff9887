/**
 * Which traces are sampled, as the user asked: OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, or
 * the file's `sampler` and `samplerRatio` (settings.ts reads the rest). A sampler and its ratio come
 * from one place, the file's standing over the variables; a ratio that nothing reads is named in the
 * log, since a user who asked for a share would otherwise get every trace without a word.
 */

/** OTEL_TRACES_SAMPLER's values the workbench knows (the standard's built-in samplers). */
export const SAMPLER_NAMES = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type SamplerName = (typeof SAMPLER_NAMES)[number];

/**
 * Which traces are sampled (sent to the collector): `ratio` of them, decided from the trace id
 * (1: all, 0: none); with `parentBased`, a span with a parent follows the parent's decision (its
 * `traceparent`'s sampled flag) and `ratio` decides only for new traces.
 */
export interface Sampler {
  readonly parentBased: boolean;
  readonly ratio: number;
}

/** The standard's default, parentbased_always_on: every new trace, and every trace its caller sampled. */
export const DEFAULT_SAMPLER: Sampler = Object.freeze({ parentBased: true, ratio: 1 });

/** The file's two keys, as settings.ts's TelemetryFileSettings has them. */
interface FileSampler {
  sampler?: SamplerName;
  samplerRatio?: number;
}

/** The sampler asked for, the file's over the variables; what cannot be used is named in `warnings`. */
export function samplerOf(env: Readonly<Record<string, string | undefined>>, file: FileSampler, warnings: string[]): Sampler {
  const given = file.sampler ?? env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  const fromFile = file.sampler !== undefined;
  if (file.samplerRatio !== undefined && !file.sampler?.endsWith("traceidratio")) {
    warnings.push(`telemetry.samplerRatio ${file.samplerRatio} is read only beside a "sampler" of "traceidratio" or ` +
      `"parentbased_traceidratio" in the file: ignored`);
  }
  const argument = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  if (argument && (fromFile || !given?.endsWith("traceidratio"))) {
    warnings.push(fromFile
      ? `OTEL_TRACES_SAMPLER_ARG '${argument}' is ignored: the file's "sampler" stands over the variables`
      : `OTEL_TRACES_SAMPLER_ARG '${argument}' is read only beside an OTEL_TRACES_SAMPLER of 'traceidratio' or ` +
        `'parentbased_traceidratio': ignored`);
  }
  if (given === undefined || given === "") return DEFAULT_SAMPLER;
  if (!(SAMPLER_NAMES as readonly string[]).includes(given)) {
    const known = SAMPLER_NAMES.join(", ");
    warnings.push(`OTEL_TRACES_SAMPLER '${env.OTEL_TRACES_SAMPLER}' is not supported (${known}): parentbased_always_on is used`);
    return DEFAULT_SAMPLER;
  }
  const parentBased = given.startsWith("parentbased_");
  const root = parentBased ? given.slice("parentbased_".length) : given;
  const ratio = root === "always_on" ? 1 : root === "always_off" ? 0 : fromFile ? file.samplerRatio ?? 1 : ratioOf(argument, warnings);
  return { parentBased, ratio };
}

/** OTEL_TRACES_SAMPLER_ARG for a `traceidratio` sampler: a number from 0 to 1, 1 when unset (the standard's default). */
function ratioOf(text: string | undefined, warnings: string[]): number {
  if (text === undefined || text === "") return 1;
  const value = /^(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?$/i.test(text) ? Number(text) : NaN;
  if (value >= 0 && value <= 1) return value;
  warnings.push(`OTEL_TRACES_SAMPLER_ARG '${text}' is not a ratio from 0 to 1: 1 is used`);
  return 1;
}
