/**
 * `serve --http`: the endpoint (endpoint.ts) on the platform's HTTP listener, over the process's
 * pool of servers. It writes the endpoint's URL to stderr once listening, never reads stdin, and
 * on SIGINT, SIGTERM or SIGHUP stops taking requests, gives the calls in flight a grace to finish,
 * ends every session and stops every server.
 */
import type { Platform } from "../../platform/types.ts";
import type { WorkbenchConfig } from "../../config/index.ts";
import type { ServerPool } from "../../toolboxes/pool.ts";
import type { ListingCache } from "../../cache/listing-cache.ts";
import { BoundedLog } from "../../transport/bounded-log.ts";
import { NAME, VERSION } from "../../protocol/version.ts";
import { openSession } from "../session.ts";
import { toolboxFigures } from "../toolbox-figures.ts";
import { ENDPOINT_PATH, httpEndpoint } from "./endpoint.ts";
import { isLoopback, openAccess } from "./open-access.ts";

/** How long calls in flight may take to finish once a stop was asked for. */
export const STOP_GRACE_MS = 5_000;

export interface HttpAddress {
  hostname: string;
  port: number;
}

export async function serveHttp(
  platform: Platform,
  loaded: { path: string; config: WorkbenchConfig },
  address: HttpAddress,
  parts: { pool: ServerPool; cache: ListingCache },
): Promise<number> {
  const { path, config } = loaded;
  const { pool, cache } = parts;
  const say = (text: string) => platform.writeStderr(`${text}\n`);
  const log = new BoundedLog(platform.writeStderr, { prefix: `${NAME}: ` });
  if (!isLoopback(address.hostname)) {
    say(`${NAME}: Refusing to serve on ${JSON.stringify(address.hostname)}: without tokens only loopback (127.0.0.1, ::1) may be served`);
    return 2;
  }
  const figures = await toolboxFigures(config, cache);
  const endpoint = httpEndpoint({
    authenticate: openAccess,
    open: (transport, client, onClose) =>
      openSession(transport, {
        config,
        configPath: path,
        pool,
        figures,
        cache,
        client,
        stateless: true,
        onClose,
        onError: (error) => log.line(error.message),
      }),
  });
  let listener;
  try {
    listener = await platform.listen(endpoint.handle, address.hostname, address.port);
  } catch (error) {
    say(`${NAME}: Cannot listen on ${hostPort(address)}: ${error instanceof Error ? error.message : String(error)}`);
    await endpoint.close();
    return 1;
  }
  const url = `http://${hostPort({ hostname: address.hostname, port: listener.port })}${ENDPOINT_PATH}`;
  say(`${NAME} ${VERSION}: serving ${Object.keys(config.toolboxes).length} toolbox(es) from ${path} at ${url}`);
  platform.startupDone();
  let stop!: (reason: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) platform.onSignal(signal, () => stop(signal));
  const reason = await stopped;
  log.flush();
  say(`${NAME}: stopping (${reason}): calls in flight have ${STOP_GRACE_MS / 1000} s to finish`);
  const left = await endpoint.drain(STOP_GRACE_MS);
  if (left > 0) say(`${NAME}: ${left} request(s) still in flight after the grace: cut off`);
  await endpoint.close();
  await listener.close();
  await pool.closeAll();
  return 0;
}

function hostPort(address: HttpAddress): string {
  return `${address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname}:${address.port}`;
}
