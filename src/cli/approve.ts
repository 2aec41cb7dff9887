/**
 * `mcp-workbench approve <toolbox> <server> [tool] [--dry-run | --yes [--digest D]]`: starts the one server,
 * shows each withheld tool's difference from its pin (old and new text: the description, the
 * pretty-printed schemas and annotations), and only then records the new pins in
 * workbench-lock.json: after the user answered "y" on a terminal, or at once with --yes (without a
 * terminal nothing is recorded without it). --dry-run shows and records nothing, and prints the
 * digest of what it showed: with --digest, only that is recorded (else nothing). Without a tool,
 * every withheld tool of the server, and its withheld prompts, resources, templates and
 * instructions (see offer.ts), and skills (their frontmatter as a diff, their files one line each,
 * see skill-files.ts); the pins of what the server no longer lists are forgotten. A running workbench sees the approval at its next
 * listing or call.
 * --client NAME starts a server whose process is each client's own as it runs for that client.
 * What the server sent is shown with its control characters escaped (printable).
 */
import type { Platform } from "../platform/types.ts";
import type { ServerConfig, WorkbenchConfig } from "../config/index.ts";
import { didYouMean } from "../config/suggest.ts";
import { canonicalJson } from "../toolboxes/fingerprint.ts";
import type { PinStore } from "../toolboxes/pin-store.ts";
import type { ToolboxRegistry } from "../toolboxes/registry.ts";
import type { ServerSlot } from "../toolboxes/server-slot.ts";
import { definitionDigest } from "../toolboxes/lock-format.ts";
import { approveCommand } from "../toolboxes/withheld.ts";
import type { SubcommandArgs } from "./args.ts";
import { commandPins, commandRegistry, EXIT_FAILED, EXIT_USAGE, loadForToolbox, printable, sayError, writeStdout } from "./common.ts";
import { type Pending, pendingOf, pendingWords, type Shown, shownPending } from "./approve-pending.ts";
import { askYesNo } from "./ask.ts";
import { sha256Hex } from "../cache/sha256.ts";
import { LOCAL_CLIENT_NAME } from "../config/client-variable.ts";

/** What the command line asks: the server (and maybe one tool or text) and how to record. */
interface ApproveRequest {
  toolbox: string;
  server: string;
  /** One tool, or one text by its key ("prompt:intro"); undefined for all the server has pending. */
  only: string | undefined;
  dryRun: boolean;
  yes: boolean;
  /** --digest: what a dry run showed, the only thing --yes may record. */
  given: string | undefined;
  client: string | undefined;
}

export async function runApprove(platform: Platform, args: SubcommandArgs): Promise<number> {
  const request = approveRequest(args);
  const { toolbox, server, client } = request;
  if (request.dryRun && request.yes) {
    sayError(platform, "Options '--dry-run' and '--yes' exclude each other: --dry-run records nothing, --yes records without asking");
    return EXIT_USAGE;
  }
  const loaded = await loadForToolbox(platform, args.configPath, toolbox);
  if (!loaded) return EXIT_USAGE;
  if (!approvable(platform, loaded, request)) return EXIT_USAGE;
  const pins = commandPins(platform, loaded);
  // A server whose process is each client's own may list a client more than the local user: approve sees what that client's process sees.
  const registry = await commandRegistry(platform, loaded, { pins, ...(client !== undefined && { client: { name: client } }) });
  try {
    return await approveServer(platform, request, registry, pins, loaded.config.toolboxes[toolbox].mcpServers);
  } catch (error) {
    sayError(platform, error instanceof Error ? error.message : String(error));
    return EXIT_FAILED;
  } finally {
    await registry.closeAll();
  }
}

/** The positionals and options, read once. */
function approveRequest(args: SubcommandArgs): ApproveRequest {
  const [toolbox, server, only] = args.positionals;
  return {
    toolbox,
    server,
    only,
    dryRun: args.options["--dry-run"] === true,
    yes: args.options["--yes"] === true,
    given: typeof args.options["--digest"] === "string" ? args.options["--digest"] : undefined,
    client: typeof args.options["--client"] === "string" ? args.options["--client"] : undefined,
  };
}

/** Whether the server is in the toolbox and pinned, and the client (if any) is known; if not, says why. */
function approvable(platform: Platform, loaded: { path: string; config: WorkbenchConfig }, request: ApproveRequest): boolean {
  const { toolbox, server, client } = request;
  const { config } = loaded;
  const servers = config.toolboxes[toolbox].mcpServers;
  if (!Object.hasOwn(servers, server)) {
    const where = `toolbox '${toolbox}' of '${loaded.path}'`;
    sayError(platform, `Server '${server}' not found in ${where}${didYouMean(server, Object.keys(servers))}`);
    return false;
  }
  if (!servers[server].pin) {
    sayError(platform, `Server '${server}' in toolbox '${toolbox}' is not pinned ("pin": false): there is nothing to approve`);
    return false;
  }
  // Names of clients with tokens are known; those of an OAuth server's subjects are not.
  const clients = Object.keys(config.serve?.clients ?? {});
  if (client !== undefined && !config.serve?.oauth && client !== LOCAL_CLIENT_NAME && !clients.includes(client)) {
    sayError(platform, `Client '${client}' not found in serve.clients${didYouMean(client, clients)}`);
    return false;
  }
  return true;
}

/** Starts the server, shows what it has pending, and records it as the request says. */
async function approveServer(
  platform: Platform,
  request: ApproveRequest,
  registry: ToolboxRegistry,
  pins: PinStore,
  servers: Record<string, ServerConfig>,
): Promise<number> {
  const { toolbox, server, only, dryRun } = request;
  const slot = registry.slot(registry.configured.find((one) => one.toolbox === toolbox && one.server === server)!);
  const connected = await slot.shared.connected();
  if (!connected.ok) {
    sayError(platform, `Failed to connect to server '${server}' in toolbox '${toolbox}': ${connected.error}`);
    return EXIT_FAILED;
  }
  // A server seen for the first time is pinned here, as serving would pin it (a dry run writes nothing).
  await pins.refresh();
  const pinnedBefore = slot.offer.pinned?.tools !== undefined;
  if (!dryRun) await slot.trust();
  const lock = pins.snapshot;
  if (lock.error !== undefined) {
    sayError(platform, lock.error);
    return EXIT_FAILED;
  }
  const pending = pendingOf(slot, only, connected.serverSession.instructions);
  const { held, gone, heldTexts, goneTexts } = pending;
  if (only !== undefined && held.length === 0 && heldTexts.length === 0) return await notWithheld(platform, request, slot, only);
  if (held.length + gone.length + heldTexts.length + goneTexts.length === 0) {
    await writeStdout(platform, nothingToApprove(request, pinnedBefore, pending.listed.length, pins.path));
    return 0;
  }
  const shown = shownPending(toolbox, server, pending);
  // Everything pending is shown before anything is recorded.
  await writeStdout(platform, printable(shown.sections.join("\n")));
  return await recordApproval(platform, request, pins, pending, shown, servers);
}

/** The one tool asked for has nothing pending: it is offered as it is, or there is no such tool. */
async function notWithheld(platform: Platform, request: ApproveRequest, slot: ServerSlot, only: string): Promise<number> {
  const { toolbox, server } = request;
  if (slot.tools.some((tool) => tool.name === only)) {
    await writeStdout(platform, `Tool '${only}' of server '${server}' in toolbox '${toolbox}' is not withheld: nothing to approve\n`);
    return 0;
  }
  const names = [...slot.tools, ...slot.withheld].map((tool) => tool.name);
  sayError(platform, `Tool '${only}' not found in server '${server}' (toolbox '${toolbox}')${didYouMean(only, names)}`);
  return EXIT_USAGE;
}

/** The answer when nothing is pending: after, on a first sight, the pinning it did (or, on a dry run, would do). */
function nothingToApprove(request: ApproveRequest, pinnedBefore: boolean, listedCount: number, pinsPath: string): string {
  const { toolbox, server } = request;
  const first = pinnedBefore
    ? ""
    : request.dryRun
    ? `Server '${server}' in toolbox '${toolbox}' is not pinned yet: its ${listedCount} tool(s) are pinned as they are when a ` +
      `session or approve first sees it\n`
    : `Pinned ${listedCount} tool(s) of server '${server}' in toolbox '${toolbox}' in ${pinsPath}\n`;
  return `${first}Nothing to approve: every tool of server '${server}' in toolbox '${toolbox}' matches its pin\n`;
}

/** After what is pending was shown: a dry run's digest, else the new pins recorded once the digest and the user agree. */
async function recordApproval(
  platform: Platform,
  request: ApproveRequest,
  pins: PinStore,
  pending: Pending,
  shown: Shown,
  servers: Record<string, ServerConfig>,
): Promise<number> {
  const { toolbox, server, given, yes } = request;
  const { held, gone, heldTexts, goneTexts } = pending;
  const { approved, approvedTexts } = shown;
  const what = pendingWords(pending);
  const { digest, asShown } = recordAsShown(request, pins, pending, shown);
  if (request.dryRun) {
    await writeStdout(
      platform,
      `\nDry run, nothing recorded: to ${what} of server '${server}' in toolbox '${toolbox}' as shown, run: ${asShown}\n`,
    );
    return 0;
  }
  if (given !== undefined && given !== digest) {
    sayError(
      platform,
      `Nothing recorded: what server '${server}' in toolbox '${toolbox}' has pending changed since digest '${given}' was shown (it ` +
        `is '${digest}' now, shown above)`,
    );
    return EXIT_FAILED;
  }
  if (!yes) {
    const refused = await refusedOnTerminal(platform, request, pins.path, what, asShown);
    if (refused !== undefined) return refused;
  }
  await pins.approve(toolbox, server, approved, gone, { pins: approvedTexts, forget: goneTexts }, definitionDigest(servers[server]));
  await writeStdout(
    platform,
    `${yes ? "\n" : ""}Server '${server}' in toolbox '${toolbox}': ${
      done(held.length, gone.length, heldTexts.length + goneTexts.length)
    }; recorded in ${pins.path}\n`,
  );
  return 0;
}

/** The digest of what was shown, and the command that records just that (`approve ... --yes --digest D`). */
function recordAsShown(request: ApproveRequest, pins: PinStore, pending: Pending, shown: Shown): { digest: string; asShown: string } {
  const { toolbox, server, only, client } = request;
  const { approved, approvedTexts } = shown;
  const { gone, goneTexts } = pending;
  const how = { ...(client !== undefined && { client }), ...(pins.configFile !== undefined && { config: pins.configFile }) };
  const command = approveCommand(toolbox, server, only, how);
  // What is recorded, as a digest: --digest holds --yes to what a dry run showed (the server may change between the two).
  const digest = sha256Hex(canonicalJson({ approved, gone, approvedTexts, goneTexts })).slice(0, 32);
  return { digest, asShown: `${command} --yes --digest ${digest}` };
}

/** Without --yes: the exit code when there is no terminal to ask or the user says no; undefined when they say yes. */
async function refusedOnTerminal(
  platform: Platform,
  request: ApproveRequest,
  pinsPath: string,
  what: string,
  asShown: string,
): Promise<number | undefined> {
  if (!platform.stdinIsTerminal()) {
    sayError(platform, `Nothing recorded: there is no terminal to ask; to ${what} as shown, run: ${asShown}`);
    return EXIT_USAGE;
  }
  const { toolbox, server } = request;
  if (!await askYesNo(platform, `\nRecord in ${pinsPath}: ${what} of server '${server}' in toolbox '${toolbox}', as shown above?`)) {
    await writeStdout(platform, "Nothing recorded\n");
    return EXIT_FAILED;
  }
  return undefined;
}

function done(approved: number, forgotten: number, texts: number): string {
  return [
    ...(approved > 0 ? [`approved ${approved} tool(s)`] : []),
    ...(forgotten > 0 ? [`forgot the pins of ${forgotten} tool(s) it no longer lists`] : []),
    ...(texts > 0 ? [`recorded ${texts} other text(s) (prompts, resources, templates, instructions)`] : []),
  ].join(", ");
}
