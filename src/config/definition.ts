/**
 * When two configured servers are one: the same resolved definition (command, args, env, cwd and
 * inheritEnv; or transport, url and headers) runs as one process or session, whatever toolboxes
 * list it and whatever they call it.
 */
import { isRemote, type ServerConfig } from "./types.ts";

/** Equal for servers that can share one server session (one process). */
export function sharingKey(config: ServerConfig): string {
  if (isRemote(config)) {
    // Whose token it gets is part of what the server is (a key without `auth` is what it always was).
    const auth = config.auth ? [config.auth.tokenExchange] : [];
    return JSON.stringify(["remote", config.transport, config.url, sortedEntries(config.headers), ...auth]);
  }
  return JSON.stringify(["stdio", config.command, config.args, sortedEntries(config.env), config.cwd ?? null, config.inheritEnv]);
}

/**
 * The settings one shared connection runs with, from every server that shares it: the most
 * generous of each, so that sharing never makes a toolbox's server fail sooner than configured
 * alone. An idle stop is the exception that proves it: one toolbox that says never (0) wins; so
 * does one that says `"roots": false`, and one that keeps clients apart (no `"share": "all"`).
 * Call limits, toolFilters and validateArguments stay each toolbox's own.
 */
export function sharedConfig(configs: ServerConfig[]): ServerConfig {
  const [first] = configs;
  const most = (pick: (config: ServerConfig) => number) => Math.max(...configs.map(pick));
  const idle = configs.some((config) => config.idleTimeoutMs === 0) ? 0 : most((config) => config.idleTimeoutMs);
  // Clients share one process only if every toolbox that lists the server lets them.
  const { share: _, ...own } = first;
  return {
    ...own as ServerConfig,
    ...(configs.every((config) => config.share === "all") && { share: "all" as const }),
    connectTimeoutMs: most((config) => config.connectTimeoutMs),
    maxMessageBytes: most((config) => config.maxMessageBytes),
    idleTimeoutMs: idle,
    // One toolbox that keeps the server on its own directories keeps the shared process on them.
    roots: configs.every((config) => config.roots),
  };
}

/**
 * What a shared connection runs with besides its definition (sharingKey): when this changes in a
 * configuration that applies live, the process is started again with it. Call limits, toolFilters
 * and validateArguments are each toolbox's own and apply without a restart.
 */
export function processSettingsKey(config: ServerConfig): string {
  const { connectTimeoutMs, maxMessageBytes, idleTimeoutMs, roots } = config;
  const oauth = isRemote(config) ? config.oauth ?? null : null;
  return JSON.stringify([sharingKey(config), connectTimeoutMs, maxMessageBytes, idleTimeoutMs, roots, oauth]);
}

function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
