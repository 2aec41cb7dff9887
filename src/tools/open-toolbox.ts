/**
 * `open_toolbox`: connects a toolbox's servers and lists their tools (spec 003). Additions to the
 * spec's result, which stays the default: `detail: "summary"` (one line per tool), `tools` (only
 * those, in full, with their outputSchema), and the toolboxes named in the description.
 */
import * as z from "zod";
import type { Tool as McpTool } from "../protocol/sdk.ts";
import type { OpenDetail, WorkbenchConfig } from "../config/index.ts";
import { askForLacking } from "./toolbox-secrets.ts";
import { Failure, Success, textResult, type Tool } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import type { OpenToolbox } from "../toolboxes/registry.ts";
import { toolboxListing, toolboxNotFound } from "./lookup.ts";
import { withoutSchemaKey } from "./pipeline/schema-key.ts";
import { summaryLine } from "./summary.ts";
import { didYouMean } from "../config/suggest.ts";
import { withheldLine, withheldTextsLine } from "../toolboxes/withheld.ts";
import { toolboxDeclarations } from "../code/declarations.ts";
import { publicUri } from "../protocol/skills.ts";

// detail and tools are explained once, in the tool's description: every byte here is in every session.
const schema = z.strictObject({
  toolbox_name: nonBlank("toolbox_name").describe("Toolbox name, as listed in the server instructions"),
  detail: z.enum(["full", "summary"], { error: 'detail must be "full" or "summary"' }).optional(),
  tools: z.array(z.string({ error: "Expected a tool name" }), { error: "tools must be an array of tool names" }).optional(),
});

export interface ToolInfo {
  name: string;
  toolbox_name: string;
  source_server: string;
  description?: string;
  title?: string;
  inputSchema: McpTool["inputSchema"];
  /** Only for tools asked for by name: it costs context and rarely helps choose a call. */
  outputSchema?: McpTool["outputSchema"];
  annotations?: McpTool["annotations"];
}

interface ToolboxHeader {
  toolbox: string;
  description: string;
  servers_connected: number;
  /**
   * Servers not connected yet when the open stopped waiting (one that answered first was waited
   * for a few seconds more): they join the toolbox when they answer, or a later open gives their error.
   */
  starting?: string;
  /**
   * What servers said about using them when they initialized: only servers that said something,
   * and a text several servers gave once, under their names joined by ", ".
   */
  instructions?: Record<string, string>;
  /**
   * How many prompts and resources each connected server offers (served as MCP prompts and
   * resources, never put in the model's context by this tool): only servers with some.
   */
  prompts_and_resources?: Record<string, ListingCounts>;
  /**
   * The Skills extension's skills of each connected server, for a model whose client does not speak
   * the extension: one line per offered skill, `name: description <URI of its SKILL.md>`, read as
   * a resource (the URI names toolbox and server, see upstream/catalog/skills.ts).
   */
  skills?: Record<string, string[]>;
  /** With skills: how to read one whatever the client speaks (use_tool's read_skill, see read-skill.ts). */
  read_skills?: string;
  /**
   * One line when tools are withheld (changed, or new, since their server's tools were pinned):
   * how many, which and why, and the command the user approves them with.
   */
  withheld?: string;
  /** One line when prompts, resources, templates or a server's instructions are withheld, likewise. */
  withheld_texts?: string;
  /** With code mode on: the toolbox's tools as TypeScript declarations, for run_code scripts. */
  declarations?: string;
}

export interface ListingCounts {
  prompts?: number;
  resources?: number;
  resource_templates?: number;
}

export interface OpenToolboxResult extends ToolboxHeader {
  tools: ToolInfo[];
  _errors?: string[];
}

export interface OpenToolboxSummary extends ToolboxHeader {
  /** Per connected server, in configuration order: one summary line per tool. */
  servers: Record<string, string[]>;
  _errors?: string[];
}

export type OpenToolboxValue = OpenToolboxResult | OpenToolboxSummary;

/** What open_toolbox shows: a detail level, or only the named tools in full. */
export type View = { detail: OpenDetail } | { tools: string[] };

export const openToolbox: Tool<typeof schema, OpenToolboxValue> = {
  name: "open_toolbox",
  description: 'Connect a toolbox\'s MCP servers and list their tools. Example: {"toolbox_name": "dev"}. ' +
    '"detail": "summary" gives one line per tool; then get the tools you will call in full with "tools": ["name"]. ' +
    "Call a tool with use_tool, passing its toolbox_name, source_server and name as tool.toolbox, tool.server and tool.name.",
  schema,
  invalidInputPrefix: "Invalid parameters",
  async run({ toolbox_name, detail, tools }, ctx) {
    const config = ctx.session.config.toolboxes[toolbox_name];
    if (!Object.hasOwn(ctx.session.config.toolboxes, toolbox_name) || !config) {
      return Failure(toolboxNotFound(ctx.session.config, toolbox_name));
    }
    let toolbox = await ctx.session.offer.open(toolbox_name, undefined, ctx.request.span);
    // A member who lacked a secret of a server and provided it now: that server starts with it.
    const asked = await askForLacking(ctx, toolbox);
    if (asked.provided) toolbox = await ctx.session.offer.open(toolbox_name, undefined, ctx.request.span);
    const failed = allFailed(toolbox);
    if (failed) return Failure([failed, ...asked.notes].join("\n"));
    const value = describeToolbox(toolbox, tools ? { tools } : { detail: detail ?? config.openDetail });
    if (asked.notes.length > 0) value._errors = [...value._errors ?? [], ...asked.notes];
    // Code mode: the same tools as TypeScript, what a run_code script is written against.
    if (config.codeMode && !tools) value.declarations = declarationsOf(toolbox);
    return Success(value);
  },
  present: (value) => textResult(JSON.stringify(value)),
};

/** open_toolbox as this configuration's client sees it: its description names the toolboxes. */
export function openToolboxFor(config: WorkbenchConfig): typeof openToolbox {
  return { ...openToolbox, description: `${openToolbox.description} ${toolboxListing(config)}` };
}

/** Servers in configuration order, tools in the order each server gave them. */
export function describeToolbox(toolbox: OpenToolbox, view: View = { detail: "full" }): OpenToolboxValue {
  const header: ToolboxHeader = {
    toolbox: toolbox.name,
    description: toolbox.config.description,
    servers_connected: toolbox.servers.filter((server) => server.serverSession).length,
  };
  const starting = toolbox.servers.filter((server) => server.starting).map((server) => `'${server.name}'`);
  if (starting.length > 0) {
    header.starting = `Still starting: ${starting.join(", ")}. use_tool on such a server waits for it to start; ` +
      "open_toolbox again lists its tools once it has started, or says why it failed";
  }
  const instructions = serverInstructions(toolbox);
  // A `tools` selection follows an open that gave the instructions already.
  if (instructions && !("tools" in view)) header.instructions = instructions;
  const counts = listingCounts(toolbox);
  if (counts && !("tools" in view)) header.prompts_and_resources = counts;
  const skills = skillLines(toolbox);
  if (skills && !("tools" in view)) {
    header.skills = skills;
    header.read_skills = `Read a skill's SKILL.md, then its files, as resources or with use_tool ` +
      `{"tool": {"toolbox": ${
        JSON.stringify(toolbox.name)
      }, "server": "workbench", "name": "read_skill"}, "arguments": {"uri": "<its URI>"}}`;
  }
  const connected = toolbox.servers.filter((server) => server.serverSession);
  const withheld = withheldLine(toolbox.name, connected);
  if (withheld) header.withheld = withheld;
  const withheldTexts = withheldTextsLine(toolbox.name, connected);
  if (withheldTexts) header.withheld_texts = withheldTexts;
  const errors = connectErrors(toolbox);
  let result: OpenToolboxValue;
  if ("tools" in view) {
    const selected = selectTools(toolbox, view.tools);
    errors.push(...selected.errors);
    result = { ...header, tools: selected.tools };
  } else if (view.detail === "summary") {
    const servers: Record<string, string[]> = {};
    for (const server of toolbox.servers) {
      if (server.serverSession) servers[server.name] = server.tools.map(summaryLine);
    }
    result = { ...header, servers };
  } else {
    result = { ...header, tools: fullEntries(toolbox) };
  }
  if (errors.length > 0) result._errors = errors;
  return result;
}

/** The spec's entries for every tool of the toolbox's connected servers, without outputSchema. */
export function fullEntries(toolbox: OpenToolbox): ToolInfo[] {
  return toolbox.servers.flatMap((server) =>
    (server.serverSession ? server.tools : []).map((tool) => toolInfo(tool, toolbox.name, server.name, false))
  );
}

/** The named tools in full (a name two servers share gives both); unknown names become errors. */
function selectTools(toolbox: OpenToolbox, names: string[]): { tools: ToolInfo[]; errors: string[] } {
  const wanted = new Set(names);
  const tools: ToolInfo[] = [];
  const found = new Set<string>();
  const known: string[] = [];
  for (const server of toolbox.servers) {
    for (const tool of server.serverSession ? server.tools : []) {
      known.push(tool.name);
      if (!wanted.has(tool.name)) continue;
      found.add(tool.name);
      tools.push(toolInfo(tool, toolbox.name, server.name, true));
    }
  }
  const errors = [...wanted].filter((name) => !found.has(name))
    .map((name) => `Tool '${name}' not found in toolbox '${toolbox.name}'${didYouMean(name, known)}`);
  return { tools, errors };
}

/** Keyed by server; a text that several servers give (one server twice) comes once, keyed "a, b". */
function serverInstructions(toolbox: OpenToolbox): Record<string, string> | undefined {
  const byText = new Map<string, string[]>();
  for (const server of toolbox.servers) {
    if (!server.serverSession || !server.instructions) continue;
    byText.set(server.instructions, [...byText.get(server.instructions) ?? [], server.name]);
  }
  if (byText.size === 0) return undefined;
  return Object.fromEntries([...byText].map(([text, servers]) => [servers.join(", "), text]));
}

function listingCounts(toolbox: OpenToolbox): Record<string, ListingCounts> | undefined {
  const counts: Record<string, ListingCounts> = {};
  for (const server of toolbox.servers) {
    const listing = server.serverSession ? server.listing : undefined;
    if (!listing) continue;
    const entry: ListingCounts = {};
    if (listing.prompts.length > 0) entry.prompts = listing.prompts.length;
    if (listing.resources.length > 0) entry.resources = listing.resources.length;
    if (listing.resourceTemplates.length > 0) entry.resource_templates = listing.resourceTemplates.length;
    if (Object.keys(entry).length > 0) counts[server.name] = entry;
  }
  return Object.keys(counts).length > 0 ? counts : undefined;
}

function skillLines(toolbox: OpenToolbox): Record<string, string[]> | undefined {
  const lines: Record<string, string[]> = {};
  for (const server of toolbox.servers) {
    const entries = server.serverSession ? server.listing?.skills?.entries ?? [] : [];
    const origin = { toolbox: toolbox.name, server: server.name };
    const mine = entries.map((entry) => `${entry.frontmatter.name}: ${entry.frontmatter.description} <${publicUri(origin, entry.uri)}>`);
    if (mine.length > 0) lines[server.name] = mine;
  }
  return Object.keys(lines).length > 0 ? lines : undefined;
}

/** The answer for a toolbox none of whose servers connected; undefined when one did (or it has none). */
export function allFailed(toolbox: OpenToolbox): string | undefined {
  if (toolbox.servers.length === 0 || anyConnected(toolbox)) return undefined;
  return `All servers in toolbox '${toolbox.name}' failed to connect:\n${connectErrors(toolbox).join("\n")}`;
}

function connectErrors(toolbox: OpenToolbox): string[] {
  return toolbox.servers.filter((server) => !server.serverSession && !server.starting)
    .map((server) => `Failed to connect to server '${server.name}' in toolbox '${toolbox.name}': ${server.error}`);
}

/** The declarations of the connected servers' tools (after filters). */
function declarationsOf(toolbox: OpenToolbox): string {
  const servers = toolbox.servers.filter((server) => server.serverSession);
  return toolboxDeclarations(servers.map((server) => ({ name: server.name, tools: server.tools })));
}

const anyConnected = (toolbox: OpenToolbox) => toolbox.servers.some((server) => server.serverSession);

/** One entry; `$schema` is dropped from schemas: it costs tokens and tells a model nothing. */
export function toolInfo(tool: McpTool, toolbox: string, server: string, withOutput: boolean): ToolInfo {
  return {
    name: tool.name,
    toolbox_name: toolbox,
    source_server: server,
    ...(tool.description !== undefined && { description: tool.description }),
    ...(tool.title !== undefined && { title: tool.title }),
    inputSchema: withoutSchemaKey(tool.inputSchema),
    ...(withOutput && tool.outputSchema !== undefined && { outputSchema: withoutSchemaKey(tool.outputSchema) }),
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
  };
}
