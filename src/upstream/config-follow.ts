/**
 * The running workbench follows its configuration file (issue 29, point 4): the file is watched
 * (config/watch.ts), a valid change is applied at once to the pool, then to every session (they
 * read the LiveConfig), and the servers it drops or changes are drained and stopped; an invalid
 * one is reported on stderr as `check` reports it, and the configuration in force stays.
 */
import type { Environment, WorkbenchConfig } from "../config/index.ts";
import type { LiveConfig } from "../config/live.ts";
import { watchConfigFile } from "../config/watch.ts";
import type { ServerPool } from "../toolboxes/pool.ts";
import type { SharedServer } from "../toolboxes/shared-server.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import type { PinStore } from "../toolboxes/pin-store.ts";
import { type FiguresFor, toolboxFigures } from "./toolbox-figures.ts";
import { NAME } from "../protocol/version.ts";

/**
 * How long a dropped or changed server's calls in flight may go on before it is stopped anyway
 * (they then fail as with a server that exits); new calls go to the new configuration at once.
 */
export const DRAIN_MS = 30_000;

export interface FollowOptions {
  path: string;
  readTextFile: (path: string) => Promise<string>;
  env: Environment;
  live: LiveConfig;
  pool: ServerPool;
  /** One line on stderr. */
  say: (text: string) => void;
  pollMs?: number;
  settleMs?: number;
  drainMs?: number;
}

export interface Following {
  stop(): void;
}

/**
 * What is read once, when serving starts; the rest of `serve` (clients, oauth, origins) applies
 * while serving over HTTP (upstream/http/serve-http.ts).
 */
const AT_NEXT_START: Record<string, (config: WorkbenchConfig) => unknown> = {
  "serve.sessionIdleMinutes": (config) => config.serve?.sessionIdleMinutes,
  auditLog: (config) => config.auditLog,
  auditArguments: (config) => config.auditArguments,
};

export function followConfigFile(options: FollowOptions): Following {
  const { path, live, pool, say } = options;
  const drainMs = options.drainMs ?? DRAIN_MS;
  const started = live.current;
  const apply = (config: WorkbenchConfig) => {
    // A save that changed nothing loaded (a touch, whitespace, a comment-like key order) is no change.
    if (JSON.stringify(config) === JSON.stringify(live.current)) return;
    const retired = pool.reconfigure(config);
    for (const error of live.replace(config)) say(`${NAME}: Applying the configuration failed in a session: ${error.message}`);
    const toolboxes = Object.keys(config.toolboxes).length;
    say(`${NAME}: applied the configuration from ${path}: ${toolboxes} toolbox(es), ${retired.length} server(s) stopping`);
    // Read once at start: the HTTP idle time, and the audit log. Said, never ignored silently.
    const later = Object.keys(AT_NEXT_START).filter((key) =>
      JSON.stringify(AT_NEXT_START[key](config)) !== JSON.stringify(AT_NEXT_START[key](started))
    );
    if (later.length > 0) {
      say(`${NAME}: ${later.map((key) => `'${key}'`).join(", ")} changed: applies at the next start, not while serving`);
    }
    for (const shared of retired) void retire(shared, drainMs, say);
  };
  const watch = watchConfigFile({
    path,
    readTextFile: options.readTextFile,
    env: options.env,
    pollMs: options.pollMs,
    settleMs: options.settleMs,
    onValid: apply,
    onInvalid: (error) => {
      say(`${NAME}: ${error.message}`);
      say(`${NAME}: The configuration in force stays until '${path}' is valid again`);
    },
  });
  return { stop: () => watch.stop() };
}

/** Its calls in flight finish (bounded), then it stops. */
async function retire(shared: SharedServer, drainMs: number, say: (text: string) => void): Promise<void> {
  if (!await shared.drained(drainMs)) {
    const { toolbox, server } = shared.target;
    say(`[${toolbox}/${server}] stopped with calls still in flight after ${drainMs} ms: the configuration no longer has it as it was`);
  }
  await shared.close();
}

/** The instructions' figures for the configuration in force: read again from the cache when it changes. */
export async function liveFigures(live: LiveConfig, cache: ListingCache, pins?: PinStore): Promise<FiguresFor> {
  let figures = await toolboxFigures(live.current, cache, pins);
  live.onChange((next) => {
    void toolboxFigures(next, cache, pins).then((made) => {
      if (live.current === next) figures = made;
    }).catch(() => {});
  });
  return (client) => figures(client);
}
