/**
 * Serving MCP on stdio, wired: the platform's streams, the client's session in front, the pool of
 * servers behind, the caches and logins, and the stop on a signal, a closed connection or a parent
 * gone. Stdio serves one client: one session (upstream/session.ts); the pool could serve several.
 */
import type { Platform } from "./platform/types.ts";
import type { WorkbenchConfig } from "./config/index.ts";
import { openSession } from "./upstream/session.ts";
import { startServing } from "./upstream/serving.ts";
import { ServerPool } from "./toolboxes/pool.ts";
import { ListingCache } from "./cache/listing-cache.ts";
import { pinsForConfig } from "./toolboxes/config-pins.ts";
import { configToName } from "./config/user-file.ts";
import { commandSearchFor } from "./downstream/links/command-path.ts";
import { StreamTransport } from "./transport/stream-transport.ts";
import { FlowGate } from "./transport/flow-gate.ts";
import { BoundedLog } from "./transport/bounded-log.ts";
import { NAME, VERSION } from "./protocol/version.ts";
import { authDir, AuthStore } from "./auth/auth-store.ts";
import { chatLogin } from "./auth/chat-login.ts";
import { parseScope, SCOPE_VARIABLE, scoped, unknownInScope } from "./upstream/access/scope.ts";
import { LOCAL_USER } from "./upstream/client-identity.ts";
import { storedLogins } from "./auth/remote-auth.ts";
import { SubjectTokens } from "./auth/subject-tokens.ts";
import { TokenExchanges } from "./auth/token-exchange.ts";

/** After the client closes our stdin: how long its last requests may take to be answered. */
const STDIN_DRAIN_MS = 2_000;
/** How often we check that the process that started us is still there. */
const PARENT_CHECK_MS = 500;
/**
 * What may wait to be written to a client that is not reading before we stop reading its stdin
 * and the servers' stdout; one message larger than this still goes through, alone.
 */
const CLIENT_BACKLOG_BYTES = 16 * 1024 * 1024;
/**
 * How many of the client's requests may be in flight (read, and not yet answered and written)
 * before we stop reading its stdin; it reads again at half. A call waiting on a server holds
 * about 4 KiB of heap (8 KiB of RSS): with 120,000 echo calls written unread the peak RSS was
 * 78 MiB at 256, 98 at 1,024, 116 at 4,096 and 215 at 16,384 (994 without a bound), and
 * throughput with 64 or 2,048 calls in flight is the same at 1,024 as at 4,096.
 */
const CLIENT_MAX_IN_FLIGHT = 1024;

/**
 * Serves the loaded configuration until told to stop; the exit code. `toolboxes` (--toolboxes,
 * else WORKBENCH_TOOLBOXES) scopes the session to those toolboxes: one agent's view.
 */
export async function serve(platform: Platform, loaded: { path: string; config: WorkbenchConfig }, toolboxes?: string): Promise<number> {
  const { path, config } = loaded;
  const log = new BoundedLog(platform.writeStderr, { prefix: `${NAME}: ` });
  const say = (text: string) => platform.writeStderr(`${text}\n`);
  const scopeText = toolboxes ?? (platform.env[SCOPE_VARIABLE] || undefined);
  const scope = scopeText === undefined ? undefined : parseScope(scopeText);
  const unknown = scopeText === undefined ? [] : scope ? unknownInScope(scope, Object.keys(config.toolboxes)) : [scopeText];
  if (unknown.length > 0) {
    const from = toolboxes !== undefined ? "--toolboxes" : SCOPE_VARIABLE;
    say(
      `${NAME}: ${from} names ${unknown.map((name) => `'${name}'`).join(", ")}, not a toolbox of ${path}; available toolboxes: ${
        Object.keys(config.toolboxes).map((name) => `'${name}'`).join(", ")
      }`,
    );
    return 2;
  }
  const backpressure = new FlowGate();
  const serversBehind = new FlowGate();
  const { pool, cache } = servers(platform, loaded, backpressure, serversBehind);
  const transport = new StreamTransport(platform.stdin, platform.stdout, {
    drainMs: STDIN_DRAIN_MS,
    quoteIgnoredLines: false,
    answerInvalid: true,
    backlog: { gate: backpressure, highWaterMark: CLIENT_BACKLOG_BYTES },
    maxRequestsInFlight: CLIENT_MAX_IN_FLIGHT,
    readGate: [backpressure, serversBehind],
  });
  const serving = await startServing(platform, loaded, { pool, cache });
  const { stop } = serving;
  // A client killed with SIGKILL may leave our stdin open (a grandparent holds it): watch the parent too.
  const parentWatch = setInterval(() => {
    if (!platform.parentAlive()) stop("the parent process is gone");
  }, PARENT_CHECK_MS);
  const session = await openSession(transport, {
    ...serving.sessions,
    client: scoped(LOCAL_USER, scope),
    onClose: () => stop("the client closed the connection"),
    onError: (error) => log.line(error.message),
    // A macrotask later: a 2026-07-28 client's first request says so before it is answered, and
    // its answer (the instructions' tool counts above all) is start-up code too (issue 42).
    onInitialized: () => void setTimeout(() => platform.startupDone(), 0),
  });
  say(`${NAME} ${VERSION}: serving ${Object.keys(config.toolboxes).length} toolbox(es) from ${path}`);
  // Started by hand in a terminal: what it waits for, and what to run instead.
  if (platform.stdinIsTerminal()) say(startedByHand(path));
  const reason = await serving.stopped;
  clearInterval(parentWatch);
  log.flush();
  say(`${NAME}: stopping (${reason})`);
  await session.close();
  await pool.closeAll();
  await serving.finish();
  return 0;
}

/** The line for a person who started the workbench in a terminal, where an MCP client should be. */
export function startedByHand(path: string): string {
  const config = /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
  return `${NAME}: This is an MCP server: it waits for an MCP client on stdin, not for typing. ` +
    `To try it, run '${NAME} check --config ${config}' or '${NAME} tools <toolbox> --config ${config}'; ` +
    `to use it, add it to your MCP client ('${NAME} init' prints the block). Ctrl-C stops it`;
}

/**
 * The pool of servers behind every session, with the listing cache and stored logins. Servers
 * start after a client's initialize: by then it is known what the client declared.
 */
export function servers(
  platform: Platform,
  loaded: { path: string; config: WorkbenchConfig },
  readGate: FlowGate,
  sendGate: FlowGate,
): { pool: ServerPool; cache: ListingCache; subjects: SubjectTokens } {
  const cache = new ListingCache(platform);
  // The tokens members sign in with, for the servers that exchange them (read over HTTP only).
  const subjects = new SubjectTokens();
  const say = (line: string) => platform.writeStderr(`${NAME}: ${line}\n`);
  const store = new AuthStore(authDir(platform.env, platform.os), platform);
  const pool = new ServerPool(loaded.config, {
    spawn: platform.spawn,
    env: platform.env,
    windows: platform.windows,
    writeStderr: platform.writeStderr,
    commandSearch: commandSearchFor(platform, platform.writeStderr),
    readGate,
    sendGate,
    auth: storedLogins(store, loaded.path, platform.readTextFile),
    tokenExchange: new TokenExchanges(subjects),
    eras: cache,
  }, {
    cache,
    // Beside the configuration file: every workbench and command using that file shares its pins.
    pins: pinsForConfig(loaded, platform, say, configToName(loaded.path, platform.env, platform.os, platform.cwd)),
    chatLogin: (upstream) => chatLogin(upstream, store, platform.serve, (text) => platform.writeStderr(`${text}\n`)),
  });
  return { pool, cache, subjects };
}
