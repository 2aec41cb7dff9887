/**
 * Telemetry's settings: the `"telemetry"` object of the configuration file over the standard
 * OpenTelemetry variables (OTEL_EXPORTER_OTLP_*, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_BSP_*, OTEL_METRIC_EXPORT_*, OTEL_TRACES_SAMPLER, OTEL_SDK_DISABLED), given as a plain record. Each signal is off
 * without an endpoint; a bad value is reported and its default used, as the standard asks.
 */
import { VERSION } from "../protocol/version.ts";
import { type BatchSettings, DEFAULT_BATCH } from "./batch-processor.ts";
import type { OtlpProtocol, OtlpTarget } from "./exporter.ts";
import { parseKeyValueList, sendableHeaders } from "./key-value-list.ts";
import type { Attributes, SpanLimits } from "./span.ts";
import { DEFAULT_SAMPLER, type Sampler, samplerOf, type SamplerName } from "./sampler-settings.ts";

/** The `"telemetry"` object of the configuration file, as validated (config/schema.ts): every key optional. */
export interface TelemetryFileSettings {
  /** Base URL of an OTLP/HTTP collector: `/v1/traces` and `/v1/metrics` are added. */
  endpoint?: string;
  tracesEndpoint?: string;
  metricsEndpoint?: string;
  protocol?: OtlpProtocol;
  headers?: Record<string, string>;
  timeoutMs?: number;
  serviceName?: string;
  resourceAttributes?: Record<string, string>;
  /** false: no traces (or no metrics) even with an endpoint. */
  traces?: boolean;
  metrics?: boolean;
  scheduleDelayMs?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  exportTimeoutMs?: number;
  metricIntervalMs?: number;
  /** Record tool calls' arguments and results on spans (masked); off by default. */
  recordContent?: boolean;
  /** OTEL_TRACES_SAMPLER's names; `samplerRatio` is OTEL_TRACES_SAMPLER_ARG (for the `traceidratio` ones). */
  sampler?: SamplerName;
  samplerRatio?: number;
  /** Set at load, never in the file: why the object cannot be used (an unset variable in it); telemetry is off. */
  unconfigured?: string;
}

export interface TelemetrySettings {
  /** Absent: no spans are made at all. */
  traces?: OtlpTarget;
  /** Absent: no histograms are kept. */
  metrics?: OtlpTarget;
  batch: BatchSettings;
  metricIntervalMs: number;
  metricTimeoutMs: number;
  resource: Attributes;
  limits: SpanLimits;
  recordContent: boolean;
  sampler: Sampler;
}

export type Environment = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SERVICE_NAME = "mcp-workbench";
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const DEFAULT_METRIC_TIMEOUT_MS = 30_000;
/** The standard has no limit on a value's length; one keeps a queue of 2048 spans small whatever a peer sends. */
export const DEFAULT_VALUE_LENGTH = 4096;
/** The most spans a queue or a batch may hold (the file's limit too, config/telemetry.ts). */
export const MAX_SPANS = 1_000_000;
const DEFAULT_COUNT_LIMIT = 128;

type Signal = "traces" | "metrics";

const ENDPOINT_VARIABLES = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];

/** Whether the file or a variable names an endpoint (or the file says why it cannot be used). A plain loop: no closure to make. */
function anyEndpoint(env: Environment, file: TelemetryFileSettings): boolean {
  if (file.endpoint || file.tracesEndpoint || file.metricsEndpoint || file.unconfigured) return true;
  for (const name of ENDPOINT_VARIABLES) if (env[name]?.trim()) return true;
  return false;
}

/** Telemetry off, as most workbenches run: no variable is read past the endpoints. */
const OFF: TelemetrySettings = Object.freeze({
  batch: DEFAULT_BATCH,
  metricIntervalMs: DEFAULT_METRIC_INTERVAL_MS,
  metricTimeoutMs: DEFAULT_METRIC_TIMEOUT_MS,
  resource: {},
  limits: {
    attributeCount: DEFAULT_COUNT_LIMIT,
    attributeValueLength: DEFAULT_VALUE_LENGTH,
    eventCount: DEFAULT_COUNT_LIMIT,
    linkCount: DEFAULT_COUNT_LIMIT,
  },
  recordContent: false,
  sampler: DEFAULT_SAMPLER,
});

/** Settings and the problems found in the variables (each one line for the log). */
export function resolveTelemetry(env: Environment, file: TelemetryFileSettings = {}): { settings: TelemetrySettings; warnings: string[] } {
  // Without any endpoint nothing else matters: this path costs a start-up a few lookups (the full
  // one, run cold once, about 0.5 ms in a compiled executable).
  if (!anyEndpoint(env, file)) return { settings: OFF, warnings: [] };
  const warnings: string[] = [];
  const number = (name: string, fallback: number, min: number, max?: number) => integerVariable(env, name, fallback, min, warnings, max);
  const disabled = disabledOf(env, warnings) || file.unconfigured !== undefined;
  if (file.unconfigured !== undefined) warnings.push(`off: ${file.unconfigured}`);
  const batch = batchSettings(file, number, warnings);
  const settings: TelemetrySettings = {
    ...(!disabled && signalOn("traces", env, file, warnings) && optionalTarget("traces", env, file, warnings)),
    ...(!disabled && signalOn("metrics", env, file, warnings) && optionalTarget("metrics", env, file, warnings)),
    batch,
    metricIntervalMs: file.metricIntervalMs ?? number("OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_METRIC_INTERVAL_MS, 1),
    metricTimeoutMs: number("OTEL_METRIC_EXPORT_TIMEOUT", DEFAULT_METRIC_TIMEOUT_MS, 1),
    resource: resourceOf(env, file, warnings),
    limits: {
      attributeCount: number("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", DEFAULT_COUNT_LIMIT, 1),
      attributeValueLength: number("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", DEFAULT_VALUE_LENGTH, 1),
      eventCount: number("OTEL_SPAN_EVENT_COUNT_LIMIT", DEFAULT_COUNT_LIMIT, 0),
      linkCount: number("OTEL_SPAN_LINK_COUNT_LIMIT", DEFAULT_COUNT_LIMIT, 0),
    },
    recordContent: file.recordContent === true,
    sampler: samplerOf(env, file, warnings),
  };
  // Both signals read the shared variables: a warning about one of them is said once. A value
  // quoted in one stays on its line (a variable may hold a line break).
  return { settings, warnings: [...new Set(warnings.map((warning) => warning.replace(/[\x00-\x1f\x7f]/g, "?")))] };
}

/** Where each signal goes, as the start and `check` say it: `traces to URL (protocol)`; none when telemetry is off. */
export function telemetryTargets(settings: TelemetrySettings): string[] {
  return (["traces", "metrics"] as const).flatMap((signal) => {
    const target = settings[signal];
    return target ? [`${signal} to ${shownUrl(target.url)} (${target.protocol})`] : [];
  });
}

/** OTEL_SDK_DISABLED: "true" turns telemetry off; another value but "false" is named, and telemetry stays on (the standard). */
function disabledOf(env: Environment, warnings: string[]): boolean {
  const value = env.OTEL_SDK_DISABLED?.trim().toLowerCase();
  if (value === "true") return true;
  if (value && value !== "false") {
    warnings.push(`OTEL_SDK_DISABLED '${env.OTEL_SDK_DISABLED}' is not 'true' or 'false': telemetry stays on`);
  }
  return false;
}

function batchSettings(
  file: TelemetryFileSettings,
  number: (name: string, fallback: number, min: number, max?: number) => number,
  warnings: string[],
): BatchSettings {
  // At most MAX_SPANS, as in the file: a queue past it would hold more than a workbench should spend.
  const maxQueueSize = file.maxQueueSize ?? number("OTEL_BSP_MAX_QUEUE_SIZE", DEFAULT_BATCH.maxQueueSize, 1, MAX_SPANS);
  const batchSize = DEFAULT_BATCH.maxExportBatchSize;
  let maxExportBatchSize = file.maxExportBatchSize ?? number("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", batchSize, 1, MAX_SPANS);
  if (maxExportBatchSize > maxQueueSize) {
    warnings.push(`the export batch size (${maxExportBatchSize}) is over the queue size (${maxQueueSize}): ${maxQueueSize} is used`);
    maxExportBatchSize = maxQueueSize;
  }
  return {
    scheduleDelayMs: file.scheduleDelayMs ?? number("OTEL_BSP_SCHEDULE_DELAY", DEFAULT_BATCH.scheduleDelayMs, 0),
    maxQueueSize,
    maxExportBatchSize,
    exportTimeoutMs: file.exportTimeoutMs ?? number("OTEL_BSP_EXPORT_TIMEOUT", DEFAULT_BATCH.exportTimeoutMs, 1),
  };
}

/** OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER: `otlp` (the default) or `none`; the file's `traces`/`metrics` stand over them. */
function signalOn(signal: Signal, env: Environment, file: TelemetryFileSettings, warnings: string[]): boolean {
  if (file[signal] !== undefined) return file[signal]!;
  const name = `OTEL_${signal.toUpperCase()}_EXPORTER`;
  const value = env[name]?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "otlp") return true;
  if (value === "none") return false;
  warnings.push(`${name} '${env[name]}' is not supported (only 'otlp' and 'none'): ${signal} go over OTLP`);
  return true;
}

function optionalTarget(
  signal: Signal,
  env: Environment,
  file: TelemetryFileSettings,
  warnings: string[],
): Partial<Record<Signal, OtlpTarget>> {
  const url = endpointOf(signal, env, file, warnings);
  if (url === undefined) return {};
  const upper = signal.toUpperCase();
  const ownTimeout = `OTEL_EXPORTER_OTLP_${upper}_TIMEOUT`;
  const timeoutName = env[ownTimeout] !== undefined ? ownTimeout : "OTEL_EXPORTER_OTLP_TIMEOUT";
  const target: OtlpTarget = {
    url,
    protocol: protocolOf(signal, env, file, warnings),
    headers: headersOf(upper, env, file, warnings),
    timeoutMs: file.timeoutMs ?? integerVariable(env, timeoutName, DEFAULT_TIMEOUT_MS, 1, warnings),
  };
  return { [signal]: target };
}

/** The file's headers, else the variables' (the signal's own over the shared ones), each one HTTP can carry. */
function headersOf(upper: string, env: Environment, file: TelemetryFileSettings, warnings: string[]): Record<string, string> {
  if (file.headers) return sendableHeaders(file.headers, "telemetry.headers", warnings);
  const own = `OTEL_EXPORTER_OTLP_${upper}_HEADERS`;
  const read = (name: string) => sendableHeaders(parseKeyValueList(env[name], name, warnings), name, warnings);
  return { ...read("OTEL_EXPORTER_OTLP_HEADERS"), ...read(own) };
}

/** The file's endpoints, then the variables; in each the signal's own before the base one (which gets `v1/<signal>`). */
function endpointOf(signal: Signal, env: Environment, file: TelemetryFileSettings, warnings: string[]): string | undefined {
  const own = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`;
  const candidates: [string | undefined, string, boolean][] = [
    [file[`${signal}Endpoint`], `telemetry.${signal}Endpoint`, false],
    [file.endpoint, "telemetry.endpoint", true],
    [env[own], own, false],
    [env.OTEL_EXPORTER_OTLP_ENDPOINT, "OTEL_EXPORTER_OTLP_ENDPOINT", true],
  ];
  const found = candidates.find(([value]) => value !== undefined && value.trim() !== "");
  if (!found) return undefined;
  const [value, name, base] = found;
  const url = base ? `${value!.trim().replace(/\/?$/, "/")}v1/${signal}` : value!.trim();
  if (isHttpUrl(url)) return url;
  warnings.push(`${name} is not an http or https URL: no ${signal} are sent`);
  return undefined;
}

function protocolOf(signal: Signal, env: Environment, file: TelemetryFileSettings, warnings: string[]): OtlpProtocol {
  if (file.protocol !== undefined) return file.protocol;
  const own = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_PROTOCOL`;
  const name = env[own] !== undefined ? own : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const value = env[name]?.trim();
  if (value === undefined || value === "" || value === "http/protobuf") return "http/protobuf";
  if (value === "http/json") return "http/json";
  warnings.push(`${name} '${value}' is not supported (only 'http/protobuf' and 'http/json'): ${signal} go as http/protobuf`);
  return "http/protobuf";
}

function resourceOf(env: Environment, file: TelemetryFileSettings, warnings: string[]): Attributes {
  const given = { ...parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES, "OTEL_RESOURCE_ATTRIBUTES", warnings), ...file.resourceAttributes };
  const serviceName = file.serviceName ?? (env.OTEL_SERVICE_NAME?.trim() || undefined) ?? given["service.name"] ?? DEFAULT_SERVICE_NAME;
  return {
    ...given,
    "service.name": serviceName,
    "service.version": given["service.version"] ?? VERSION,
    "telemetry.sdk.name": DEFAULT_SERVICE_NAME,
    "telemetry.sdk.version": VERSION,
  };
}

function integerVariable(env: Environment, name: string, fallback: number, min: number, warnings: string[], max = 2_147_483_647): number {
  const text = env[name]?.trim();
  if (text === undefined || text === "") return fallback;
  const value = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (value >= min && value <= max) return value;
  warnings.push(`${name} '${text}' is not an integer from ${min} to ${max}: ${fallback} is used`);
  return fallback;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** A target's URL without credentials, query or fragment: what a log line may name. */
export function shownUrl(url: string): string {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}
