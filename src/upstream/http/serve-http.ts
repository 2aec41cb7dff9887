/**
 * `serve --http`: the endpoint (endpoint.ts) on the platform's HTTP listener, over the process's
 * pool of servers. It writes the endpoint's URL to stderr once listening, never reads stdin, and
 * on SIGINT, SIGTERM or SIGHUP stops taking requests, gives the calls in flight a grace to finish,
 * ends every session and stops every server.
 */
import type { HttpListener, Platform } from "../../platform/types.ts";
import type { WorkbenchConfig } from "../../config/index.ts";
import type { ServerPool } from "../../toolboxes/pool.ts";
import type { ListingCache } from "../../cache/listing-cache.ts";
import type { SubjectTokens } from "../../auth/subject-tokens.ts";
import { BoundedLog } from "../../transport/bounded-log.ts";
import { NAME, VERSION } from "../../protocol/version.ts";
import { openSession } from "../session.ts";
import { type Serving, startServing } from "../serving.ts";
import {
  accessOf,
  authenticatorFor,
  type AuthenticatorOptions,
  bindingRefusal,
  protectedResourceMetadata,
  refusedClients,
  RESOURCE_METADATA_PATH,
  revokedBy,
} from "../access/index.ts";
import { ENDPOINT_PATH, type HttpEndpoint, httpEndpoint } from "./endpoint.ts";
import type { Authenticate } from "../client-identity.ts";
import type { ServeConfig } from "../../config/index.ts";
import { openNamedStore } from "../../store/open-store.ts";
import { type ConnectServing, openConnect } from "./connect-serving.ts";
import { CONNECT_PATH } from "./connect-page.ts";
import type { ConnectFlow } from "../../auth/connect-flow.ts";

/** Who may connect now: the configuration's `serve`, and the check of a request against it. */
interface Access {
  serve: ServeConfig | undefined;
  authenticate: Authenticate;
}

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
  parts: { pool: ServerPool; cache: ListingCache; subjects?: SubjectTokens },
  storeUrl?: string,
): Promise<number> {
  const { path, config } = loaded;
  const { pool } = parts;
  const say = (text: string) => platform.writeStderr(`${text}\n`);
  const log = new BoundedLog(platform.writeStderr, { prefix: `${NAME}: ` });
  const refused = bindingRefusal(address.hostname, config.serve);
  if (refused) {
    say(`${NAME}: ${refused}`);
    return 2;
  }
  for (const line of refusedClients(config.serve)) say(`${NAME}: ${line}`);
  const store = await openStore(platform, storeUrl, config.serve, (line) => log.line(line));
  if (typeof store === "string") {
    say(`${NAME}: ${store}`);
    return 2;
  }
  // Replicas share what their servers listed: one that never started a server knows its tools.
  if (store) parts.cache.share(store);
  const serving = await startServing(platform, loaded, { ...parts, store });
  // The toolboxes a scope may grant are those configured now; who may connect too (see below).
  const scoped = {
    get toolboxes() {
      return Object.keys(serving.live.current.toolboxes);
    },
    subjects: parts.subjects,
  };
  const access = { serve: config.serve, authenticate: authenticatorFor(config.serve, scoped) };
  const connecting = { store: serving.sessions.states!.store, pool: parts.pool };
  const connect = await openConnect(platform, config, connecting, (line) => log.line(line));
  if (typeof connect === "string") {
    say(`${NAME}: ${connect}`);
    await serving.finish();
    return 2;
  }
  const endpoint = endpointOf(serving, access, log, connect?.flow);
  followAccess(serving, { access, endpoint, hostname: address.hostname, log, scoped });
  let listener;
  try {
    listener = await platform.listen(requestRoutes(access, endpoint, connect), address.hostname, address.port);
  } catch (error) {
    say(`${NAME}: Cannot listen on ${hostPort(address)}: ${error instanceof Error ? error.message : String(error)}`);
    await endpoint.close();
    await serving.finish();
    return 1;
  }
  const url = `http://${hostPort({ hostname: address.hostname, port: listener.port })}${ENDPOINT_PATH}`;
  const kept = store ? `; sessions kept in ${store.name}` : "";
  say(`${NAME} ${VERSION}: serving ${Object.keys(config.toolboxes).length} toolbox(es) from ${path} at ${url}${kept}`);
  platform.startupDone();
  const reason = await serving.stopped;
  log.flush();
  await stop({ say, reason, endpoint, listener, pool, serving });
  return 0;
}

/**
 * The address a client reached us at: its Host, and the scheme a proxy in front that ends TLS says
 * it took (`X-Forwarded-Proto`), so that a page offered to the member is on https:// as they are.
 */
function publicOrigin(request: Request): string {
  const url = new URL(request.url);
  const scheme = request.headers.get("x-forwarded-proto")?.split(",")[0].trim().toLowerCase();
  return scheme === "https" || scheme === "http" ? `${scheme}://${url.host}` : url.origin;
}

/** Where a request goes: the protected resource's metadata, a member's connect page, or the MCP endpoint. */
function requestRoutes(access: Access, endpoint: HttpEndpoint, connect: ConnectServing | undefined) {
  return (request: Request) => {
    const path = new URL(request.url).pathname;
    if (path === RESOURCE_METADATA_PATH) return Promise.resolve(protectedResourceMetadata(request, access.serve));
    return connect && path.startsWith(CONNECT_PATH) ? connect.page(request) : endpoint.handle(request);
  };
}

/** The endpoint of the serving: who a request is (the access as it stands), and a session for each client that opens one. */
function endpointOf(serving: Serving, access: Access, log: BoundedLog, connect?: ConnectFlow) {
  const serve = access.serve;
  return httpEndpoint({
    authenticate: async (request) => {
      const who = await access.authenticate(request);
      // A member's page is on the address their client reached us at.
      if (connect && !(who instanceof Response)) connect.seen(who.name, publicOrigin(request));
      return who;
    },
    idleMs: serve && serve.sessionIdleMinutes * 60_000,
    toolboxes: () => Object.keys(serving.live.current.toolboxes),
    store: serving.sessions.states?.store,
    onError: (error) => log.line(`A request failed: ${error.message}`),
    open: (transport, client, onClose, stateKey, httpSessionId) =>
      openSession(transport, {
        ...serving.sessions,
        connect,
        client,
        stateKey,
        stateless: true,
        network: "tcp",
        httpSessionId,
        onClose,
        onError: (error) => log.line(error.message),
      }),
  });
}

/**
 * The store sessions keep their state in: `--store`, else `serve.store`, else (undefined) memory.
 * One that is named and cannot be opened is never replaced by memory: the words of the refusal.
 */
async function openStore(platform: Platform, flag: string | undefined, serve: ServeConfig | undefined, log: (line: string) => void) {
  try {
    return await openNamedStore(flag, serve, platform.connectRedis, log);
  } catch (error) {
    return `Cannot serve: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * A change to who may connect applies at once: a revoked client's sessions and hubs end, and with
 * them the processes only they used. Tokens stay required beyond loopback (the change is refused).
 */
function followAccess(
  serving: Serving,
  parts: { access: Access; endpoint: HttpEndpoint; hostname: string; log: BoundedLog; scoped: AuthenticatorOptions },
): void {
  const { access, endpoint, log } = parts;
  serving.live.onChange((next) => {
    if (accessOf(next.serve) === accessOf(access.serve)) return;
    const refusal = bindingRefusal(parts.hostname, next.serve);
    if (refusal) return log.line(`The change to 'serve' is not applied: ${refusal}; the clients in force stay`);
    const revoked = revokedBy(access.serve, next.serve);
    access.serve = next.serve;
    access.authenticate = authenticatorFor(next.serve, parts.scoped);
    // A name may now be a static client's that was a JWT subject's: no token of the one is the other's.
    parts.scoped.subjects?.clear();
    void endpoint.endClients(revoked).then((ended) => {
      log.line(
        `Applied the change to 'serve': who may connect is the new configuration's${
          ended > 0 ? `; ${ended} session(s) of revoked clients ended` : ""
        }`,
      );
    }, (error) => log.line(`Ending revoked sessions failed: ${error instanceof Error ? error.message : String(error)}`));
  });
}

/** The stop: no new requests, a grace for the calls in flight, then every session, the listener and every server end. */
async function stop(
  parts: {
    say: (text: string) => void;
    reason: string;
    endpoint: HttpEndpoint;
    listener: HttpListener;
    pool: ServerPool;
    serving: Serving;
  },
) {
  const { say, endpoint } = parts;
  say(`${NAME}: stopping (${parts.reason}): calls in flight have ${STOP_GRACE_MS / 1000} s to finish`);
  const left = await endpoint.drain(STOP_GRACE_MS);
  if (left > 0) say(`${NAME}: ${left} request(s) still in flight after the grace: cut off`);
  await endpoint.close();
  await parts.listener.close();
  await parts.pool.closeAll();
  await parts.serving.finish();
}

function hostPort(address: HttpAddress): string {
  return `${address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname}:${address.port}`;
}
