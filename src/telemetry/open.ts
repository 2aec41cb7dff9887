/**
 * The door to telemetry. Off (no endpoint), the workbench holds NOOP_TELEMETRY and loads nothing
 * else of telemetry's: the exporter, the encoders and metrics are imported when an endpoint is set
 * (issue 50: off costs nothing at start; tests/start-up-modules.test.ts). The import names a file
 * of this tree, so `bun build --compile` puts it in the executable (a dynamic import of a package
 * name would not be: claude-code#50567); tests/e2e/telemetry.test.ts shows the executable exporting.
 */
import { NOOP_TELEMETRY, type Telemetry, type TelemetryOptions } from "./off.ts";
import type { TelemetrySettings } from "./settings.ts";

/** Telemetry for `settings`: NOOP_TELEMETRY when neither traces nor metrics have an endpoint. */
export async function openTelemetry(settings: TelemetrySettings, options: TelemetryOptions = {}): Promise<Telemetry> {
  if (!settings.traces && !settings.metrics) return NOOP_TELEMETRY;
  return (await import("./telemetry.ts")).createTelemetry(settings, options);
}
