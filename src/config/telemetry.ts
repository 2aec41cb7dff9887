/**
 * The `"telemetry"` key (issue 50): where OpenTelemetry traces and metrics go and how, over the
 * standard OTEL_* variables (src/telemetry/settings.ts reads both). Its rules here; its `${VAR}`
 * in endpoints and header values expanded at load, an unset one turning telemetry off alone.
 */
import * as v from "valibot";
import { MAX_SPANS, type TelemetryFileSettings } from "../telemetry/settings.ts";
import { SAMPLER_NAMES } from "../telemetry/sampler-settings.ts";
import { invalidAt } from "./errors.ts";
import type { PathSegment } from "./path.ts";
import {
  boundedInteger,
  EXPECTED_BOOLEAN,
  EXPECTED_TIMEOUT,
  MAX_TIMEOUT_MS,
  nonEmptyString,
  strictJsonObject,
  stringRecord,
} from "./schema-parts.ts";

const EXPECTED_SPANS = `expected a positive integer of spans (at most ${MAX_SPANS})`;
const EXPECTED_RATIO = "expected a number from 0 to 1";
const EXPECTED_DELAY = `expected an integer of milliseconds (at most ${MAX_TIMEOUT_MS})`;

export const telemetrySchema = strictJsonObject({
  endpoint: v.optional(nonEmptyString()),
  tracesEndpoint: v.optional(nonEmptyString()),
  metricsEndpoint: v.optional(nonEmptyString()),
  protocol: v.optional(v.picklist(["http/protobuf", "http/json"], 'expected "http/protobuf" or "http/json"')),
  headers: v.optional(stringRecord()),
  timeoutMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_TIMEOUT),
  serviceName: v.optional(nonEmptyString()),
  resourceAttributes: v.optional(stringRecord()),
  traces: v.optional(v.boolean(EXPECTED_BOOLEAN)),
  metrics: v.optional(v.boolean(EXPECTED_BOOLEAN)),
  scheduleDelayMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_DELAY, 0),
  maxQueueSize: boundedInteger(MAX_SPANS, EXPECTED_SPANS),
  maxExportBatchSize: boundedInteger(MAX_SPANS, EXPECTED_SPANS),
  exportTimeoutMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_TIMEOUT),
  metricIntervalMs: boundedInteger(MAX_TIMEOUT_MS, EXPECTED_TIMEOUT),
  recordContent: v.optional(v.boolean(EXPECTED_BOOLEAN)),
  sampler: v.optional(v.picklist(SAMPLER_NAMES, `expected one of ${SAMPLER_NAMES.map((name) => `"${name}"`).join(", ")}`)),
  samplerRatio: v.optional(v.pipe(v.number(EXPECTED_RATIO), v.minValue(0, EXPECTED_RATIO), v.maxValue(1, EXPECTED_RATIO))),
}, "expected an object");

type Expand = (text: string, path: PathSegment[]) => string;

const ENDPOINTS = ["endpoint", "tracesEndpoint", "metricsEndpoint"] as const;

/** An endpoint written as one `${VAR}` (with or without a default), whole. */
const WHOLE_VARIABLE = /^\$\{[^}]*\}$/;

/**
 * `${VAR}` expanded in the endpoints and the header values (a collector's token comes from the
 * environment, never the file); each endpoint must then be an http or https URL (a problem of the
 * file, or of the environment when one variable is the whole URL: then `unconfigured`). `problems`
 * collects the file's; an unset variable is the caller's to set aside (`unconfigured`).
 */
export function expandTelemetry(telemetry: TelemetryFileSettings, expand: Expand, problems: string[]): TelemetryFileSettings {
  const expanded: TelemetryFileSettings = { ...telemetry };
  for (const key of ENDPOINTS) {
    const value = telemetry[key];
    if (value === undefined) continue;
    const before = problems.length;
    expanded[key] = expand(value, ["telemetry", key]);
    // The message names what was expected, never the value: a URL can hold a token.
    if (problems.length === before && !isHttpUrl(expanded[key]!)) {
      const why = invalidAt(["telemetry", key], "expected an http or https URL after expanding environment variables");
      // A URL that is all one variable's (set empty, or without its scheme) is the environment's
      // mistake, not the file's: telemetry is off, saying why, as for an unset one; the workbench runs.
      if (WHOLE_VARIABLE.test(value)) expanded.unconfigured ??= why;
      else problems.push(why);
    }
  }
  if (telemetry.headers) {
    const headers = Object.entries(telemetry.headers).map(([name, value]) => [name, expand(value, ["telemetry", "headers", name])]);
    expanded.headers = Object.fromEntries(headers);
  }
  return expanded;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}
