/**
 * `search_tools` (issue 39): finds tools in every toolbox the session may see, for a query in plain
 * words, best first, each with its toolbox, server, name, first sentence and a compact signature
 * (open_toolbox's summary format). Offered when the configuration says `"toolSearch": true`. It
 * answers from what is known (live lists and the listing cache): no server starts for it. Skills
 * of the offer (Skills extension) are found too: a skill's result says `kind: "skill"` and names the
 * URI of its SKILL.md (skill://<toolbox>/<server>/…), read with use_tool's `read_skill`.
 */
import * as z from "zod";
import type { CallToolResult } from "../protocol/sdk.ts";
import { Failure, Success, type Tool } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import { toolboxNotFound } from "./lookup.ts";
import { firstSentence, signatureOf } from "./summary.ts";
import { utf8Bytes } from "../transport/utf8.ts";
import { READ_SKILL } from "./read-skill.ts";
import { MAX_QUERY_CHARS } from "../search/bounds.ts";
import type { ToolboxAbout } from "./session-search.ts";

export const DEFAULT_SEARCH_LIMIT = 8;
export const MAX_SEARCH_LIMIT = 50;

const schema = z.strictObject({
  query: nonBlank("query")
    .max(MAX_QUERY_CHARS, { error: `query must be at most ${MAX_QUERY_CHARS} characters: say what the tool should do in a few words` })
    .describe("What the tool should do, in plain words"),
  toolbox: nonBlank("toolbox").optional().describe("Search this toolbox only"),
  limit: z.number({ error: "limit must be an integer from 1 to 50" })
    .int({ error: "limit must be an integer from 1 to 50" })
    .min(1, { error: "limit must be an integer from 1 to 50" })
    .max(MAX_SEARCH_LIMIT, { error: "limit must be an integer from 1 to 50" })
    .optional().describe("How many results at most (default 8)"),
});

export interface ToolFound {
  kind?: undefined;
  toolbox: string;
  server: string;
  name: string;
  description: string;
  /** `name(arg: type, optional?: type)` */
  signature: string;
}

/** A skill of a server (Skills extension): its name, first sentence, and the URI of its SKILL.md. */
export interface SkillFound {
  kind: "skill";
  toolbox: string;
  server: string;
  name: string;
  description: string;
  uri: string;
}

export type SearchResult = ToolFound | SkillFound;

export interface SearchAnswer {
  results: SearchResult[];
  /** When no tool fits: every toolbox searched, with what it is for (its description, else its servers and a few tools). */
  toolboxes?: ToolboxAbout[];
  /** "toolbox/server" of servers whose tools are not known yet: being listed now, searched next time. */
  not_listed?: string[];
}

/** Servers named in the text as not listed yet; the structured answer has them all. */
const MAX_NOT_LISTED = 5;
/** Longest signature in a result, in characters. */
const MAX_SIGNATURE = 200;
/** Longest line of the text content, in UTF-8 bytes: 8 lines and the header stay under 2,400. */
const MAX_LINE_BYTES = 270;

export const searchTools: Tool<typeof schema, SearchAnswer> = {
  name: "search_tools",
  description: 'Find tools in every toolbox by what they do. Example: {"query": "read a file"}. ' +
    "Each result gives toolbox, server and name: call it with use_tool directly (no open_toolbox needed); " +
    'open_toolbox {"toolbox_name": ..., "tools": [name]} gives its full schema. ' +
    "Servers' skills (instructions for a task) are found too, by the URI of their SKILL.md.",
  schema,
  invalidInputPrefix: "Invalid parameters",
  async run({ query, toolbox, limit }, ctx) {
    if (toolbox !== undefined && !Object.hasOwn(ctx.session.config.toolboxes, toolbox)) {
      return Failure(toolboxNotFound(ctx.session.config, toolbox));
    }
    if (!ctx.session.search) return Failure('Tool search is off: turn it on with "toolSearch": true at the top of the configuration');
    const answer = await ctx.session.search.search(ctx.session.offer, query, limit ?? DEFAULT_SEARCH_LIMIT, toolbox);
    const results = answer.hits.map((hit): SearchResult =>
      hit.skill !== undefined
        ? {
          kind: "skill",
          toolbox: hit.toolbox,
          server: hit.server,
          name: hit.name,
          description: firstSentence(hit.description ?? ""),
          uri: hit.skill,
        }
        : {
          toolbox: hit.toolbox,
          server: hit.server,
          name: hit.name,
          description: firstSentence(hit.description ?? ""),
          signature: cut(signatureOf(hit.tool), MAX_SIGNATURE),
        }
    );
    return Success({
      results,
      ...(answer.toolboxes && { toolboxes: answer.toolboxes }),
      ...(answer.notListed.length > 0 && { not_listed: answer.notListed }),
    });
  },
  present: (value) => presentSearch(value),
};

/** The value as structuredContent, and as text: one line per tool or skill, best first. */
export function presentSearch(value: SearchAnswer): CallToolResult {
  const skills = value.results.some((result) => result.kind === "skill");
  const lines = value.results.length === 0 ? nothingFits(value.toolboxes ?? []) : skills
    ? [
      `${value.results.length} results, best first; call a tool with use_tool {"tool": {"toolbox", "server", "name"}, "arguments"}, ` +
      `read a skill with use_tool {"tool": {"toolbox", "server": "workbench", "name": "${READ_SKILL}"}, "arguments": {"uri"}}:`,
    ]
    : [`${value.results.length} tools, best first; call one with use_tool {"tool": {"toolbox", "server", "name"}, "arguments"}:`];
  for (const result of value.results) {
    const about = result.description === "" ? "" : `: ${result.description}`;
    // A skill's URI names its toolbox and server, and comes before the description, which is cut first.
    const line = result.kind === "skill"
      ? `skill ${result.name} <${result.uri}>${about}`
      : `${result.toolbox}/${result.server} ${result.signature}${about}`;
    lines.push(cutBytes(line, MAX_LINE_BYTES));
  }
  if (value.not_listed) {
    const shown = value.not_listed.slice(0, MAX_NOT_LISTED).join(", ");
    const more = value.not_listed.length > MAX_NOT_LISTED ? ` and ${value.not_listed.length - MAX_NOT_LISTED} more` : "";
    lines.push(`Not searched yet (their tools are being listed): ${shown}${more}`);
  }
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: value as unknown as Record<string, unknown> };
}

/** No tool fits: the toolboxes and what they are for, so the model can open one or ask again in other words. */
function nothingFits(toolboxes: readonly ToolboxAbout[]): string[] {
  if (toolboxes.length === 0) return ["No tools found."];
  const lines = [
    "No tool fits these words. The toolboxes and what they are for; search again in other words, " +
    'or open one with open_toolbox {"toolbox_name": ...}:',
  ];
  for (const about of toolboxes.slice(0, MAX_TOOLBOXES_SHOWN)) {
    const what = about.description !== ""
      ? about.description
      : `servers ${about.servers.join(", ")}; tools such as ${about.tools.join(", ")}`;
    lines.push(cutBytes(`${about.toolbox}: ${what}`, MAX_LINE_BYTES));
  }
  const more = toolboxes.length - MAX_TOOLBOXES_SHOWN;
  if (more > 0) lines.push(`and ${more} more toolboxes (all in structuredContent)`);
  return lines;
}

/** Toolboxes named in the text when nothing fits: with the header, under 2,400 bytes. */
const MAX_TOOLBOXES_SHOWN = 8;

const cut = (text: string, max: number) => text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/** At most `max` UTF-8 bytes, ending with "…" when cut. */
function cutBytes(text: string, max: number): string {
  if (utf8Bytes(text) <= max) return text;
  let end = Math.min(text.length, max);
  while (end > 0 && utf8Bytes(text.slice(0, end)) > max - 3) end--;
  return `${text.slice(0, end)}…`;
}
