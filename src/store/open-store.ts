/**
 * The store a configuration names, opened: `serve --http` keeps its sessions there, and the
 * `secrets` command finds the secrets members provided there. Both open it the same way, so that
 * what one writes the other reads.
 */
import { type ConnectRedis, openRedisStore, type RedisStore } from "./redis-store.ts";

/** What the configuration's `serve` says of its store (the shape of ServeConfig's two keys). */
export interface StoreSetting {
  store?: string;
  /** Why `store` could not be read (an unset `${VAR}`), when it could not. */
  storeUnreadable?: string;
}

/**
 * The store named by `flag` (`--store`), else by `serve.store`; undefined when neither names one
 * (memory). One that is named and cannot be opened rejects saying why: it is never replaced by
 * memory, since replicas would then each keep their own and nobody would notice.
 */
export async function openNamedStore(
  flag: string | undefined,
  serve: StoreSetting | undefined,
  connect: ConnectRedis,
  log: (line: string) => void,
): Promise<RedisStore | undefined> {
  if (flag === undefined && serve?.storeUnreadable !== undefined) throw new Error(serve.storeUnreadable);
  const url = flag ?? serve?.store;
  if (url === undefined) return undefined;
  return await openRedisStore(url, connect, { log });
}
