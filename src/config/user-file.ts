/** The per-user configuration file: where `init` writes it and where serving looks last. */
import { resolveConfigPath } from "./load.ts";

/** The folders a path in the user's space is made of, from the environment. */
export interface Places {
  os: string;
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
}

/** Joins a relative path (forward slashes) onto an absolute folder, in that folder's style. */
export function join(base: string, relative: string): string {
  return resolveConfigPath({ flag: relative, env: {}, cwd: base });
}

/** The user's home folder: HOME, else USERPROFILE (Windows). */
export function homeOf(env: Record<string, string | undefined>): string | undefined {
  return env.HOME || env.USERPROFILE || undefined;
}

/** The platform's folder for configuration files (XDG_CONFIG_HOME, Application Support, APPDATA). */
export function configFolder(places: Places): string {
  if (places.os === "darwin") return join(places.home, "Library/Application Support");
  if (places.os === "windows") return places.env.APPDATA || join(places.home, "AppData/Roaming");
  return places.env.XDG_CONFIG_HOME || join(places.home, ".config");
}

/** `<config folder>/mcp-workbench/workbench-config.json`: what `init` writes when not told where. */
export function userConfigFile(places: Places): string {
  return join(configFolder(places), "mcp-workbench/workbench-config.json");
}

/**
 * The configuration file as the commands a hint prints name it (`--config FILE`): undefined for the
 * per-user file, which a command finds from any folder without a workbench-config.json of its own.
 */
export function configToName(path: string, env: Record<string, string | undefined>, os: string, cwd: string): string | undefined {
  const home = homeOf(env);
  return home !== undefined && userConfigFile({ os, home, cwd, env }) === path ? undefined : path;
}
