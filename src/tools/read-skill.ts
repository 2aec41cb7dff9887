/**
 * use_tool on the reserved server `workbench`, tool `read_skill`: reads a file of a skill of the
 * session's offer (Skills extension) for a client that speaks neither resources nor the extension,
 * by the URI open_toolbox and search_tools give (skill://<toolbox>/<server>/<path>). It reads the
 * way resources/read does (the catalog's SkillRoutes.readFile): a withheld skill is refused, the
 * bytes must match the digest and size the skill was offered with, and only a file its skill's
 * entry lists is read (any file under a "dynamic" skill's root). The answer's first text says which
 * server the file comes from and whether it was verified; the file follows as it is (a text item,
 * or an embedded resource for bytes), cut to pages as any use_tool result is.
 */
import type { CallToolResult, ContentBlock } from "../protocol/sdk.ts";
import { messageOf } from "../protocol/errors.ts";
import { Failure, type Result, Success, type ToolContext } from "./tool.ts";
import { useToolToolboxNotFound } from "./pipeline/resolve.ts";
import type { ToolId } from "./pipeline/values.ts";
import { pageResult, resultLimit } from "./page-result.ts";

export const READ_SKILL = "read_skill";

export async function readSkill(id: ToolId, args: Record<string, unknown>, ctx: ToolContext): Promise<Result<CallToolResult>> {
  const where = `in server '${id.server}' (toolbox '${id.toolbox}')`;
  if (!Object.hasOwn(ctx.session.config.toolboxes, id.toolbox)) return Failure(useToolToolboxNotFound(ctx.session.config, id.toolbox));
  const unknown = Object.keys(args).filter((key) => key !== "uri");
  const problems = [
    ...(typeof args.uri !== "string" || args.uri === "" ? ["'uri': expected the URI of a skill's file, a non-empty string"] : []),
    ...unknown.map((key) => `'${key}': unknown argument (expected 'uri')`),
  ];
  if (problems.length > 0) {
    return Failure(`Invalid arguments for tool '${READ_SKILL}' ${where}:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  }
  const uri = args.uri as string;
  const failed = (detail: string) => Failure<CallToolResult>(`Error executing tool '${READ_SKILL}' ${where}: ${detail}`);
  const prefix = `skill://${encodeURIComponent(id.toolbox)}/`;
  if (!uri.startsWith(prefix)) return failed(`"${uri}" is not a skill file of toolbox '${id.toolbox}': such a URI starts with "${prefix}"`);
  if (!ctx.session.skills) return failed("This session serves no skills");
  let read: Awaited<ReturnType<NonNullable<ToolContext["session"]["skills"]>["readFile"]>>;
  try {
    read = await ctx.session.skills.readFile(uri, ctx.request.span);
  } catch (error) {
    return failed(messageOf(error));
  }
  const server = decodeURIComponent(uri.slice(prefix.length).split("/")[0]);
  const check = read.verified
    ? `it matches the digest and size its skill was approved with (${read.verified.digest}, ${read.verified.size} bytes)`
    : `a file of a "dynamic" skill: its bytes cannot be verified`;
  const about = `File ${uri} of server '${server}' in toolbox '${id.toolbox}', as the server serves it; ${check}.`;
  const files: ContentBlock[] = read.contents.map((content) =>
    content.text !== undefined ? { type: "text", text: content.text } : {
      type: "resource",
      resource: { uri: content.uri, ...(content.mimeType && { mimeType: content.mimeType }), blob: content.blob ?? "" },
    }
  );
  const result: CallToolResult = { content: [{ type: "text", text: about }, ...files] };
  const limit = resultLimit(ctx.session.config, id.toolbox, server);
  return Success(await pageResult(result, ctx.session.results, limit, id.toolbox, ctx.request.span));
}
