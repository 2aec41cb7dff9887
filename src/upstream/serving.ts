/**
 * What serving opens before its first session, over stdio and over HTTP alike: the configuration
 * in force (the file followed, a valid change applied live), the audit log, the instructions'
 * figures and code mode's declarations from the listing cache, telemetry (flushed at the end),
 * and the stop on a signal.
 */
import type { Platform } from "../platform/types.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import { LiveConfig } from "../config/live.ts";
import type { ServerPool } from "../toolboxes/pool.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import { openAuditLog } from "../trust/audit-log.ts";
import { NAME } from "../protocol/version.ts";
import { followConfigFile } from "./config-follow.ts";
import { clientListings } from "./client-listings.ts";
import type { SessionOptions } from "./session.ts";
import { sessionStates } from "./session-state.ts";
import { MemoryStore } from "../store/memory-store.ts";
import type { Store } from "../store/store.ts";
import { openTelemetry, PROCESS_RUNTIME_NAME, resolveTelemetry, telemetryTargets } from "../telemetry/index.ts";

/** The options every session of the process shares. */
export type SharedSessionOptions = Pick<
  SessionOptions,
  "config" | "audit" | "configPath" | "pool" | "listings" | "cache" | "states" | "telemetry"
>;

/** At exit, how long what telemetry has queued may take to reach the collector before it is given up. */
const TELEMETRY_EXIT_MS = 5_000;

export interface Serving {
  live: LiveConfig;
  sessions: SharedSessionOptions;
  /** Resolves with the reason serving is to stop (a signal, or stop() from the caller). */
  stopped: Promise<string>;
  stop(reason: string): void;
  /** After the sessions and servers closed: stops following the file and writes the audit log's last lines. */
  finish(): Promise<void>;
}

export async function startServing(
  platform: Platform,
  loaded: { path: string; config: WorkbenchConfig },
  parts: { pool: ServerPool; cache: ListingCache; store?: Store },
): Promise<Serving> {
  const { path, config } = loaded;
  const { pool, cache } = parts;
  const say = (text: string) => platform.writeStderr(`${text}\n`);
  // First: a signal while the rest starts is a stop too.
  let stop!: (reason: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) platform.onSignal(signal, () => stop(signal));
  // The configuration in force: the file is watched and a valid change applies without a restart.
  const live = new LiveConfig(config);
  // The audit log's path is the one the workbench started with (a change to it needs a restart).
  const audit = openAuditLog(config, { append: platform.appendPrivateFile, warn: (text) => say(`${NAME}: ${text}`) });
  const listings = await clientListings(live, cache, pool.pins);
  // Read once at the start, as the audit log's path is: off (no endpoint) it is NOOP_TELEMETRY.
  const { settings, warnings } = resolveTelemetry(platform.env, config.telemetry);
  for (const warning of warnings) say(`${NAME}: Telemetry: ${warning}`);
  const telemetry = await openTelemetry(settings, {
    onProblem: (text) => say(`${NAME}: ${text}`),
    resource: { [PROCESS_RUNTIME_NAME]: platform.runtime },
  });
  if (telemetry.tracing || telemetry.metering) pool.traceWith(telemetry);
  // Said once at the start: telemetry off and on-but-nothing-arrives look alike otherwise.
  const targets = telemetryTargets(settings);
  if (targets.length > 0) say(`${NAME}: Telemetry: ${targets.join(", ")}`);
  const following = followConfigFile({ path, readTextFile: platform.readTextFile, env: platform.env, live, pool, say });
  return {
    live,
    sessions: {
      config: live,
      audit,
      configPath: path,
      pool,
      listings,
      cache,
      states: sessionStates(parts.store ?? new MemoryStore(), live, platform.collectGarbage),
      telemetry,
    },
    stopped,
    stop,
    finish: async () => {
      following.stop();
      await audit?.flushed();
      // Last: the spans of the sessions just closed are queued by now.
      await telemetry.shutdown(TELEMETRY_EXIT_MS);
      await parts.store?.close().catch(() => {});
    },
  };
}
