/** What every subcommand needs: its output streams, the configuration, and a host for servers. */
import type { Platform } from "../platform/types.ts";
import { ConfigError, type FallbackObserver, loadConfig, resolveConfigPath, type WorkbenchConfig } from "../config/index.ts";
import type { ConnectionHost } from "../toolbox/connection.ts";
import { commandSearchFor } from "../toolbox/command-path.ts";
import { NAME } from "../version.ts";

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

/** One line (or a few) on stderr, after the program's name. */
export function sayError(platform: Platform, text: string): void {
  platform.writeStderr(`${NAME}: ${text}\n`);
}

/**
 * Loads the configuration as serving does; a bad file is reported whole on stderr and gives
 * undefined (the caller exits with EXIT_USAGE).
 */
export async function loadForCommand(
  platform: Platform,
  configPath: string | undefined,
  onFallback?: FallbackObserver,
): Promise<{ path: string; config: WorkbenchConfig } | undefined> {
  try {
    const path = resolveConfigPath({ flag: configPath, env: platform.env, cwd: platform.cwd });
    return await loadConfig({ path, env: platform.env, readTextFile: platform.readTextFile, onFallback });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    sayError(platform, error.message);
    return undefined;
  }
}

/**
 * Servers started by a command: their stderr lines are not relayed (they would bury the output),
 * since a server that fails carries its last ones in its message. Which PATH found a command is
 * still said: it explains why a server runs here and not from a desktop client.
 */
export function commandHost(platform: Platform): ConnectionHost {
  const commandSearch = commandSearchFor(platform, platform.writeStderr);
  return { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {}, commandSearch };
}
