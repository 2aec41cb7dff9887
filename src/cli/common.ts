/** What every subcommand needs: its output streams, the configuration, and a host for servers. */
import { SessionOffer } from "../toolboxes/session-offer.ts";
import type { Platform } from "../platform/types.ts";
import { ConfigError, type FallbackObserver, loadConfig, locateConfig, type WorkbenchConfig } from "../config/index.ts";
import { configToName, homeOf, userConfigFile } from "../config/user-file.ts";
import type { ServerSessionHost } from "../downstream/session-options.ts";
import { type RegistryOptions, ToolboxRegistry } from "../toolboxes/registry.ts";
import { commandUpstream, sessionExtensions } from "./command-upstream.ts";
import { ListingCache } from "../cache/listing-cache.ts";
import { commandSearchFor } from "../downstream/links/command-path.ts";
import { NAME } from "../protocol/version.ts";
import { authDir, AuthStore } from "../auth/auth-store.ts";
import { storedLogins } from "../auth/remote-auth.ts";
import type { PinStore } from "../toolboxes/pin-store.ts";
import { pinsForConfig } from "../toolboxes/config-pins.ts";
import { toolboxNotFound } from "../tools/lookup.ts";

/** Exit code for a usage or configuration error, as most CLIs do. */
export const EXIT_USAGE = 2;
/** Exit code for a command that ran but failed: a server down, a tool's error. */
export const EXIT_FAILED = 1;

export async function writeStdout(platform: Platform, text: string): Promise<void> {
  const writer = platform.stdout.getWriter();
  try {
    await writer.write(new TextEncoder().encode(text));
  } finally {
    writer.releaseLock();
  }
}

/**
 * Server text as a terminal may show it: control characters (but tab and newline), DEL, C1 and
 * the invisible direction marks written as \u{…}. A description could otherwise move the cursor,
 * erase a line or reorder what follows, and the user would approve text other than what they saw.
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`,
  );
}

/** One line (or a few) on stderr, after the program's name. */
export function sayError(platform: Platform, text: string): void {
  platform.writeStderr(`${NAME}: ${text}\n`);
}

/**
 * Loads the configuration as serving does (--config, WORKBENCH_CONFIG, ./workbench-config.json,
 * then the per-user file `init` writes); a bad file is reported whole on stderr and gives
 * undefined (the caller exits with EXIT_USAGE).
 */
export async function loadForCommand(
  platform: Platform,
  configPath: string | undefined,
  onFallback?: FallbackObserver,
): Promise<{ path: string; config: WorkbenchConfig } | undefined> {
  try {
    const { env, cwd } = platform;
    const home = homeOf(env);
    const userFile = home === undefined ? undefined : userConfigFile({ os: platform.os, home, cwd, env });
    const location = locateConfig({ flag: configPath, env, cwd, userFile });
    return await loadConfig({ ...location, env, readTextFile: platform.readTextFile, onFallback });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    sayError(platform, error.message);
    return undefined;
  }
}

/** The configuration for a command about one toolbox; undefined once the usage error is said. */
export async function loadForToolbox(
  platform: Platform,
  configPath: string | undefined,
  toolbox: string,
): Promise<{ path: string; config: WorkbenchConfig } | undefined> {
  const loaded = await loadForCommand(platform, configPath);
  if (!loaded || Object.hasOwn(loaded.config.toolboxes, toolbox)) return loaded;
  sayError(platform, toolboxNotFound(loaded.config, toolbox, loaded.path));
  return undefined;
}

/**
 * Servers started by a command: their stderr lines are not relayed (they would bury the output),
 * since a server that fails carries its last ones in its message. Which PATH found a command is
 * still said: it explains why a server runs here and not from a desktop client. Remote servers
 * use the logins `auth` stored, as serving does, and refresh them.
 */
export function commandHost(platform: Platform, configPath: string): ServerSessionHost {
  const commandSearch = commandSearchFor(platform, platform.writeStderr);
  const auth = storedLogins(new AuthStore(authDir(platform.env, platform.os), platform), configPath, platform.readTextFile);
  return { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {}, commandSearch, auth };
}

/** The pins of a command's configuration file: its own lock, and its name in approve's hints. */
export function commandPins(platform: Platform, loaded: { path: string; config: WorkbenchConfig }): PinStore {
  const configFile = configToName(loaded.path, platform.env, platform.os, platform.cwd);
  return pinsForConfig(loaded, platform, (line) => sayError(platform, line), configFile);
}

/**
 * The registry of a command that starts servers (check, tools, call): as serving's, it keeps what
 * they list (tools, prompts, resources) and the era they speak in the listing cache, so that the
 * next session knows them before anything starts there. closeAll() waits for those writes. Its
 * client declares what sessions declared to these servers (see command-upstream.ts).
 */
export async function commandRegistry(
  platform: Platform,
  loaded: { path: string; config: WorkbenchConfig },
  options: Omit<RegistryOptions, "cache"> = {},
): Promise<ToolboxRegistry> {
  const cache = new ListingCache(platform);
  const pins = options.pins ?? commandPins(platform, loaded);
  const servers = Object.values(loaded.config.toolboxes).flatMap((toolbox) => Object.values(toolbox.mcpServers));
  // As the client the command runs as (approve --client) has them: a per-client process's lists are in that client's files.
  const listedFor = (await Promise.all(servers.map((server) => cache.readEntry(server, options.client?.name))))
    .flatMap((entry) => Object.keys(entry?.lists ?? {}));
  const upstream = options.upstream ?? commandUpstream((line) => sayError(platform, line), sessionExtensions(listedFor));
  const registry = new ToolboxRegistry(loaded.config, { ...commandHost(platform, loaded.path), eras: cache }, {
    ...options,
    pins,
    cache,
    upstream,
  });
  stopOnSignal(platform, registry);
  return registry;
}

/** A command's view of what it may see: its registry (commandRegistry) behind the offer every surface reads. */
export async function commandOffer(
  platform: Platform,
  loaded: { path: string; config: WorkbenchConfig },
  options: Omit<RegistryOptions, "cache"> = {},
): Promise<SessionOffer> {
  const registry = await commandRegistry(platform, loaded, options);
  return new SessionOffer(registry, () => loaded.config);
}

/** A command's exit code after a signal, as a shell reports it: 128 and the signal's number. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * A command told to stop (Ctrl-C, SIGTERM, its terminal gone) stops its servers with serving's
 * stop sequence, but for the wait: the user asked for it to end now, so each server's stdin closes
 * with SIGTERM to its process group at once, and SIGKILL follows 2 s later. Then it exits: no
 * server outlives it, and a call in flight goes no further. A second signal changes nothing.
 */
function stopOnSignal(platform: Platform, registry: ToolboxRegistry): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    platform.onSignal(signal, () => {
      if (stopping) return;
      stopping = true;
      sayError(platform, `Stopping its servers (${signal})`);
      void registry.closeAll({ graceful: false }).finally(() => platform.exit(SIGNAL_EXIT[signal]));
    });
  }
}
