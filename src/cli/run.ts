/**
 * The program: parse the command line; with no subcommand, load the configuration and serve MCP on
 * stdio until told to stop; with one, run it and exit with its code.
 */
import type { Platform } from "../platform/types.ts";
import { serveWorkbench } from "../server/workbench-server.ts";
import { ToolboxRegistry } from "../toolbox/registry.ts";
import { CatalogCache } from "../toolbox/catalog-cache.ts";
import { commandSearchFor } from "../toolbox/command-path.ts";
import { toolboxFigures } from "../server/toolbox-figures.ts";
import { StreamTransport } from "../transport/stream-transport.ts";
import { FlowGate } from "../transport/flow-gate.ts";
import { BoundedLog } from "../log.ts";
import { NAME, VERSION } from "../version.ts";
import { helpText, parseArgs, type SubcommandArgs, type SubcommandName } from "./args.ts";
import { EXIT_USAGE, loadForCommand, writeStdout } from "./common.ts";
import { AuthStore, authDir } from "../remote/auth-store.ts";
import { chatLogin } from "../remote/chat-login.ts";
import { storedLogins } from "../remote/remote-auth.ts";
import { ClientUpstream } from "../relay/upstream.ts";

export { EXIT_USAGE };

/**
 * Each subcommand's module is loaded when it runs, never to serve: what serving does not load
 * (the JSON Schema of the file, the client importers, the SDK's OAuth client) takes no memory.
 * tests/start-up-modules.test.ts checks that serving leaves them unloaded.
 */
const RUN: Record<SubcommandName, (platform: Platform, args: SubcommandArgs) => Promise<number>> = {
  check: async (platform, args) => (await import("./check.ts")).runCheck(platform, args),
  tools: async (platform, args) => (await import("./tools.ts")).runTools(platform, args),
  call: async (platform, args) => (await import("./call.ts")).runCall(platform, args),
  init: async (platform, args) => (await import("./init.ts")).runInit(platform, args),
  schema: async (platform) => (await import("./schema.ts")).runSchema(platform),
  auth: async (platform, args) => (await import("./auth.ts")).runAuth(platform, args),
};
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

export async function run(platform: Platform): Promise<number> {
  const command = parseArgs(platform.args);
  const say = (text: string) => platform.writeStderr(`${text}\n`);
  switch (command.kind) {
    case "help":
      await writeStdout(platform, helpText(NAME, VERSION, command.subcommand));
      return 0;
    case "version":
      await writeStdout(platform, `${NAME} ${VERSION}\n`);
      return 0;
    case "usage-error":
      say(`${NAME}: ${command.message}`);
      return EXIT_USAGE;
    case "subcommand":
      // A subcommand is not a long-lived server: its memory matters less than its speed.
      platform.startupDone();
      return await RUN[command.name](platform, command);
  }

  const loaded = await loadForCommand(platform, command.configPath);
  if (!loaded) return EXIT_USAGE;
  const { path, config } = loaded;

  const log = new BoundedLog(platform.writeStderr, { prefix: `${NAME}: ` });
  const backpressure = new FlowGate();
  const serversBehind = new FlowGate();
  const catalog = new CatalogCache(platform);
  // Servers start after the client's initialize: by then it is known what the client declared.
  const upstream = new ClientUpstream();
  const store = new AuthStore(authDir(platform.env, platform.os), platform);
  const registry = new ToolboxRegistry(config, {
    spawn: platform.spawn,
    env: platform.env,
    windows: platform.windows,
    writeStderr: platform.writeStderr,
    commandSearch: commandSearchFor(platform, platform.writeStderr),
    readGate: backpressure,
    sendGate: serversBehind,
    auth: storedLogins(store, path, platform.readTextFile),
    upstream,
    chatLogin: chatLogin(upstream, store, platform.serve, (text) => platform.writeStderr(`${text}\n`)),
    eras: catalog,
  }, { catalog });
  const transport = new StreamTransport(platform.stdin, platform.stdout, {
    drainMs: STDIN_DRAIN_MS,
    quoteIgnoredLines: false,
    answerInvalid: true,
    backlog: { gate: backpressure, highWaterMark: CLIENT_BACKLOG_BYTES },
    maxRequestsInFlight: CLIENT_MAX_IN_FLIGHT,
    readGate: [backpressure, serversBehind],
  });
  let stop!: (reason: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) platform.onSignal(signal, () => stop(signal));
  // A client killed with SIGKILL may leave our stdin open (a grandparent holds it): watch the parent too.
  const parentWatch = setInterval(() => {
    if (!platform.parentAlive()) stop("the parent process is gone");
  }, PARENT_CHECK_MS);
  const server = await serveWorkbench(transport, {
    config,
    configPath: path,
    registry,
    figures: await toolboxFigures(config, catalog),
    catalog,
    onClose: () => stop("the client closed the connection"),
    onError: (error) => log.line(error.message),
    onInitialized: () => platform.startupDone(),
    upstream,
  });
  say(`${NAME} ${VERSION}: serving ${Object.keys(config.toolboxes).length} toolbox(es) from ${path}`);
  const reason = await stopped;
  clearInterval(parentWatch);
  log.flush();
  say(`${NAME}: stopping (${reason})`);
  await registry.closeAll();
  await server.close().catch(() => {});
  return 0;
}
