/**
 * The pin store of a configuration file: its own lock file (lockPathFor), the folder's shared
 * workbench-lock.json of before standing in until that exists, for this file's servers only.
 */
import type { WorkbenchConfig } from "../config/index.ts";
import { definitionDigest } from "./lock-format.ts";
import type { MutexFiles } from "./file-mutex.ts";
import { LOCK_FILE, lockPathFor, PinStore } from "./pin-store.ts";

/**
 * `configFile`: the file as approve's hints name it (undefined for the default one). A shared
 * entry is this file's when this file has a pinned server of that toolbox and name and the entry
 * was made for its definition (or recorded none, as locks from before definitions): another
 * file's same-named server is left out, and pinned again as that file's own on first sight.
 */
export function pinsForConfig(
  loaded: { path: string; config: WorkbenchConfig },
  files: MutexFiles,
  say: (line: string) => void,
  configFile?: string,
): PinStore {
  const path = lockPathFor(loaded.path);
  const shared = `${path.slice(0, path.length - path.replace(/^.*[\\/]/, "").length)}${LOCK_FILE}`;
  const keep = (toolbox: string, server: string, definition: string | undefined) => {
    const servers = Object.hasOwn(loaded.config.toolboxes, toolbox) ? loaded.config.toolboxes[toolbox].mcpServers : {};
    const config = Object.hasOwn(servers, server) ? servers[server] : undefined;
    return config !== undefined && (definition === undefined || definition === definitionDigest(config));
  };
  const legacy = shared === path ? undefined : { path: shared, keep };
  return new PinStore(path, files, say, { ...(legacy && { legacy }), ...(configFile !== undefined && { configFile }) });
}
