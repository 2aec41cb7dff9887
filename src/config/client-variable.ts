/**
 * `${WORKBENCH_CLIENT}`: the name of the client a server's process works for, in a stdio server's
 * env and args (so that state a server keeps in a file can be one file per client). Loading leaves
 * the reference in place (expand.ts); the pool puts the client's name in when it starts a process
 * for that client ("local" over stdio).
 */
import type { ServerConfig } from "./types.ts";

export const CLIENT_VARIABLE = "WORKBENCH_CLIENT";
/** The reference as loading leaves it, whatever form the file gave (a default never applies: a client always has a name). */
export const CLIENT_REFERENCE = "${WORKBENCH_CLIENT}";

/**
 * The variable's value for the one user over stdio and for the subcommands: the local user's name (LOCAL_USER,
 * upstream/access/identity.ts).
 */
export const LOCAL_CLIENT_NAME = "local";

/** Where the variable may be used, for the error that says it is used elsewhere. */
export const CLIENT_VARIABLE_PLACES = "${WORKBENCH_CLIENT} is only for a stdio server's env and args";

/** Whether a loaded server's env or args name the client. */
export function usesClient(config: ServerConfig): boolean {
  if (config.transport !== "stdio") return false;
  return [...config.args, ...Object.values(config.env)].some((text) => text.includes(CLIENT_REFERENCE));
}

/** The server as it starts for a client: the client's name in place of each reference. */
export function forClient<T extends ServerConfig>(config: T, client: string): T {
  if (config.transport !== "stdio" || !usesClient(config)) return config;
  const put = (text: string) => text.replaceAll(CLIENT_REFERENCE, client);
  return {
    ...config,
    args: config.args.map(put),
    env: Object.fromEntries(Object.entries(config.env).map(([name, value]) => [name, put(value)])),
  };
}
