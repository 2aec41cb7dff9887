/**
 * use_tool's lookup of a tool (see SessionOffer.find): from the identifier to the tool as the
 * session's toolboxes offer it, or the text that says what is wrong, with the closest names.
 */
import type { Tool } from "../protocol/sdk.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import type { CallTarget } from "./call-target.ts";
import { alternatives, didYouMean } from "../config/suggest.ts";
import { judged } from "./offer-rules.ts";
import { withheldError } from "./withheld.ts";
import type { OpenToolbox, ToolboxRegistry } from "./registry.ts";
import { serverAttributes, type Span, TOOLBOX_OPEN } from "../telemetry/index.ts";
import type { Lacking } from "./start-credentials.ts";

export type { CallTarget };

/** A tool found, or why not (the text a client sees; `withheld` when the pins refused it). */
export type Found = { ok: true; target: CallTarget; tool: Tool } | { ok: false; error: string; withheld?: boolean };

/** What a call asks of the offer (see tools/pipeline/resolve.ts). */
export interface ToolFinder {
  /**
   * The tool a call names: its toolbox open (opened here when `opens`), its server connected and
   * pinned, the tool listed and not withheld.
   */
  find(id: ToolName, signal: () => AbortSignal, opens: Opens, parent?: Span): Promise<Found>;
  /** For a server made without a secret of the session's member: the one still lacking (see SharedServer.lacking). */
  lacking?(id: Pick<ToolName, "toolbox" | "server">): Promise<Lacking | undefined>;
}

/** Whether a call may open its toolbox: asked only when the toolbox is not open (most calls never ask). */
export type Opens = boolean | (() => boolean);

/** A tool as use_tool names it. */
export interface ToolName {
  toolbox: string;
  server: string;
  name: string;
}

/** "in server 's' (toolbox 'dev')": where a call's failures say it was. */
export const whereOf = (id: ToolName) => `in server '${id.server}' (toolbox '${id.toolbox}')`;

/** use_tool's answer for a toolbox that is not configured (spec 000's wording), with the closest name. */
export function useToolToolboxNotFound(config: WorkbenchConfig, name: string): string {
  return `Error executing tool: Toolbox '${name}' not found in configuration${didYouMean(name, Object.keys(config.toolboxes))}`;
}

/** Opens a toolbox (ToolboxRegistry.open); with telemetry on, as an INTERNAL span under `parent`, its servers' starts under it. */
export async function openToolbox(registry: ToolboxRegistry, name: string, server?: string, parent?: Span): Promise<OpenToolbox> {
  const span = parent?.child(TOOLBOX_OPEN, serverAttributes(name));
  try {
    return await registry.open(name, server, span);
  } finally {
    span?.end();
  }
}

/**
 * The tool a call names: its toolbox open (opened here when `opens`, or when the session opened it
 * on another replica), its server connected and pinned, the tool listed and not withheld.
 */
export async function findTool(
  registry: ToolboxRegistry,
  config: WorkbenchConfig,
  id: ToolName,
  /** Read only when a server must be waited for: a call's signal is made when first read (call-cancel.ts). */
  signal: () => AbortSignal,
  opens: Opens,
  parent?: Span,
): Promise<Found> {
  if (!Object.hasOwn(config.toolboxes, id.toolbox)) return { ok: false, error: useToolToolboxNotFound(config, id.toolbox) };
  // Only the server called is waited for: another of its toolbox may still be starting.
  // A toolbox the session opened on another replica (its name is in the store) is opened here.
  const reopens = () => (typeof opens === "function" ? opens() : opens) || registry.wasOpened(id.toolbox);
  const toolbox = registry.get(id.toolbox) ?? (await reopens() ? await openToolbox(registry, id.toolbox, id.server, parent) : undefined);
  if (!toolbox) return { ok: false, error: notOpen(id.toolbox) };
  const slot = toolbox.servers.find((s) => s.name === id.server);
  if (!slot) {
    const servers = toolbox.servers.map((s) => s.name);
    return {
      ok: false,
      error: `Error executing tool: Server '${id.server}' not found in toolbox '${id.toolbox}'${didYouMean(id.server, servers)}`,
    };
  }
  const connected = slot.shared.liveSession() ?? await slot.shared.connected(signal(), parent);
  if (!connected.ok) return { ok: false, error: `Error executing tool '${id.name}' ${whereOf(id)}: ${connected.error}` };
  const serverSession = connected.serverSession;
  // Pins first: a server seen for the first time is pinned; the lock read a moment ago will do.
  const judging = judged(slot);
  if (judging) await judging;
  // The offer read once, and again only when what it is made of may have moved (the lock, the list).
  const named = (item: { name: string }) => item.name === id.name;
  let offer = slot.offer;
  // Refused only by the lock as it is now: an approval made a moment ago counts.
  if (offer.withheld.some(named)) {
    await slot.trust();
    offer = slot.offer;
  }
  let tool = offer.tools.find(named);
  if (!tool && !offer.withheld.some(named)) {
    // A tool the server has just added (tools/list_changed) is found once its list has come.
    await serverSession.toolsSettled();
    offer = slot.offer;
    tool = offer.tools.find(named);
  }
  const withheld = offer.withheld.find(named);
  if (withheld) return { ok: false, withheld: true, error: withheldError(id.toolbox, id.server, withheld, slot.approveWith) };
  if (!tool) {
    return {
      ok: false,
      error: `Error executing tool: Tool '${id.name}' not found ${whereOf(id)}${elsewhere(toolbox, id.server, id.name)}`,
    };
  }
  return { ok: true, target: slot.on(serverSession), tool };
}

/** What a call of a toolbox that is not open is told. */
function notOpen(toolbox: string): string {
  const open = `{"toolbox_name": ${JSON.stringify(toolbox)}}`;
  return `Error executing tool: Toolbox '${toolbox}' is not open; call open_toolbox with ${open} first`;
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
  const others = toolbox.servers.filter((s) => s.name !== serverName && s.tools.some((tool) => tool.name === name));
  if (others.length > 0) return `. Did you mean server ${alternatives(others.map((s) => s.name))}?`;
  const server = toolbox.servers.find((s) => s.name === serverName);
  return didYouMean(name, (server?.tools ?? []).map((tool) => tool.name));
}
