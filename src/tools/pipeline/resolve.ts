/**
 * Step 1 of a tool call, resolve: from the identifier use_tool names to the tool itself. The
 * toolbox is configured and open (or opened here, for a request that stands alone), the server is
 * in it and connected, its pins are read, and the tool is listed and not withheld.
 */
import type { Tool as McpTool } from "../../protocol/sdk.ts";
import type { WorkbenchConfig } from "../../config/index.ts";
import { alternatives, didYouMean } from "../../config/suggest.ts";
import type { ServerSession } from "../../downstream/server-session.ts";
import type { OpenToolbox, ServerSlot, ToolboxRegistry } from "../../toolboxes/registry.ts";
import { withheldError } from "../../toolboxes/withheld.ts";
import { CALL_RECHECK_MS } from "../../toolboxes/pin-store.ts";
import { type CallNote, Failure, type Result, Success, type ToolId, whereOf } from "./values.ts";

/** What resolving needs. */
export interface Resolving {
  config: WorkbenchConfig;
  /** The session's toolboxes (each session opens its own). */
  registry: ToolboxRegistry;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /**
   * True when the client's requests stand alone (2026-07-28 over HTTP): one may land where its
   * toolbox was never opened (another replica, a session that expired), so the call opens it.
   */
  opensToolboxes?: () => boolean;
  /** The session's tool search: a toolbox it answered with is opened by the call (found without open_toolbox). */
  search?: { readonly found: ReadonlySet<string> };
}

/** The tool found: its server as the toolbox sees it (slot), its server session, and its definition. */
export interface Resolved {
  slot: ServerSlot;
  serverSession: ServerSession;
  tool: McpTool;
}

/** use_tool's answer for a toolbox that is not configured (spec 000's wording), with the closest name. */
export function useToolToolboxNotFound(config: WorkbenchConfig, name: string): string {
  return `Error executing tool: Toolbox '${name}' not found in configuration${didYouMean(name, Object.keys(config.toolboxes))}`;
}

export async function resolveTool(id: ToolId, scope: Resolving, note: CallNote): Promise<Result<Resolved>> {
  const { config, registry } = scope;
  if (!Object.hasOwn(config.toolboxes, id.toolbox)) return Failure(useToolToolboxNotFound(config, id.toolbox));
  const opens = scope.opensToolboxes?.() || scope.search?.found.has(id.toolbox) === true;
  // Only the server called is waited for: another of its toolbox may still be starting.
  const toolbox = registry.get(id.toolbox) ?? (opens ? await registry.open(id.toolbox, id.server) : undefined);
  if (!toolbox) {
    return Failure(
      `Error executing tool: Toolbox '${id.toolbox}' is not open; ` +
        `call open_toolbox with {"toolbox_name": ${JSON.stringify(id.toolbox)}} first`,
    );
  }
  const slot = toolbox.servers.find((s) => s.name === id.server);
  if (!slot) {
    const servers = toolbox.servers.map((s) => s.name);
    return Failure(
      `Error executing tool: Server '${id.server}' not found in toolbox '${id.toolbox}'${didYouMean(id.server, servers)}`,
    );
  }
  const connected = slot.shared.liveConnection() ?? await registry.connected(slot, scope.signal);
  if (!connected.ok) return Failure(`Error executing tool '${id.name}' ${whereOf(id)}: ${connected.error}`);
  const serverSession = connected.connection;
  // Pins first: a server seen for the first time is pinned; the lock read a moment ago will do.
  if (!slot.trusted(CALL_RECHECK_MS)) await slot.trust(CALL_RECHECK_MS);
  // A tool the server has just added (tools/list_changed) is found once its list has come.
  const find = () => slot.tools.find((t) => t.name === id.name);
  const held = () => slot.withheld.find((t) => t.name === id.name);
  // Refused only by the lock as it is now: an approval made a moment ago counts.
  if (held()) await slot.trust();
  const tool = find() ?? (held() ? undefined : await serverSession.toolsSettled().then(find));
  const withheld = held();
  if (withheld) {
    note.outcome = "withheld";
    return Failure(withheldError(id.toolbox, id.server, withheld, slot.approveAs));
  }
  if (!tool) return Failure(`Error executing tool: Tool '${id.name}' not found ${whereOf(id)}${elsewhere(toolbox, id.server, id.name)}`);
  return Success({ slot, serverSession, tool });
}

/**
 * The tail of "tool not found": the connected servers of the toolbox that have a tool of exactly
 * that name (the model picked the wrong server), else this server's closest tool names.
 */
function elsewhere(toolbox: OpenToolbox, serverName: string, name: string): string {
  // `server/name`, as `tools` prints it and open_toolbox groups it: the name alone was meant.
  const slash = name.lastIndexOf("/");
  if (slash >= 0) {
    const [owner, bare] = [name.slice(0, slash).split("/").at(-1), name.slice(slash + 1)];
    const lists = (server: string) => toolbox.servers.some((s) => s.name === server && s.tools.some((tool) => tool.name === bare));
    const alone = `"name" is the tool's own name, without its server`;
    if (lists(serverName)) return `. Did you mean '${bare}'? (${alone})`;
    if (owner !== undefined && lists(owner)) return `. Did you mean server '${owner}' and name '${bare}'? (${alone})`;
  }
  const others = toolbox.servers.filter((s) =>
    s.name !== serverName && s.tools.some((tool) => tool.name === name)
  );
  if (others.length > 0) return `. Did you mean server ${alternatives(others.map((s) => s.name))}?`;
  const server = toolbox.servers.find((s) => s.name === serverName);
  return didYouMean(name, (server?.tools ?? []).map((tool) => tool.name));
}
