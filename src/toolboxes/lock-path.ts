/** Where a configuration file's pins are: its lock file's name, and the folder's shared lock of before. */

export const LOCK_FILE = "workbench-lock.json";

/**
 * The lock file of a configuration file, beside it and named after it, so that two configurations
 * in one folder never share pins: workbench-config.json's is workbench-lock.json (as it always
 * was), workbench-config.NAME.json's (what `init` writes per project) workbench-lock.NAME.json, and
 * any other FILE.json's FILE.lock.json.
 */
export function lockPathFor(configPath: string): string {
  const cut = Math.max(configPath.lastIndexOf("/"), configPath.lastIndexOf("\\"));
  const name = configPath.slice(cut + 1);
  const own = /^workbench-config(\..+)?\.json$/.exec(name);
  const lock = own ? `workbench-lock${own[1] ?? ""}.json` : `${name.replace(/\.jsonc?$/i, "")}.lock.json`;
  return `${configPath.slice(0, cut + 1)}${lock}`;
}

/**
 * The lock shared by every configuration of a folder before locks were per file (workbench-lock.json):
 * read while this file's own lock is not there yet, for the entries `keep` says are this file's
 * (its toolbox and server names, made for its definitions); the first write copies them into its own.
 */
export interface LegacyLock {
  path: string;
  keep(toolbox: string, server: string, definition: string | undefined): boolean;
}

export interface PinStoreOptions {
  legacy?: LegacyLock;
  /** The configuration file as approve's hints name it (--config); undefined for the default one. */
  configFile?: string;
}
