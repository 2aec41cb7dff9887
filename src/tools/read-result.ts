/**
 * use_tool on the reserved server `workbench`: the workbench's own tool `read_result` (and, see
 * read-skill.ts, `read_skill`). read_result reads
 * on in a result cut to maxResultTokens (see page-result.ts). It reads the session's kept results
 * only (this process's, or the store's shared by replicas): no server is started or asked.
 */
import type { CallToolResult } from "../protocol/sdk.ts";
import { didYouMean } from "../config/suggest.ts";
import { Failure, type Result, Success, type ToolContext } from "./tool.ts";
import { READ_RESULT, readPage } from "./page-result.ts";
import { useToolToolboxNotFound } from "./pipeline/resolve.ts";
import type { ToolId } from "./pipeline/values.ts";
import { MAX_AGE_MS } from "./result-store.ts";
import { READ_SKILL } from "./read-skill.ts";

export async function readResult(id: ToolId, args: Record<string, unknown>, ctx: ToolContext): Promise<Result<CallToolResult>> {
  const where = `in server '${id.server}' (toolbox '${id.toolbox}')`;
  if (!Object.hasOwn(ctx.session.config.toolboxes, id.toolbox)) return Failure(useToolToolboxNotFound(ctx.session.config, id.toolbox));
  if (id.name !== READ_RESULT) {
    return Failure(
      `Error executing tool: Tool '${id.name}' not found ${where}${
        didYouMean(id.name, [READ_RESULT, READ_SKILL]) || `. Its tools are '${READ_RESULT}' and '${READ_SKILL}'`
      }`,
    );
  }
  const problems = argumentProblems(args);
  if (problems.length > 0) {
    return Failure(`Invalid arguments for tool '${READ_RESULT}' ${where}:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  }
  const resultId = args.id as string;
  const offset = (args.offset as number | undefined) ?? 0;
  const failed = (detail: string) => Failure<CallToolResult>(`Error executing tool '${READ_RESULT}' ${where}: ${detail}`);
  let kept;
  try {
    kept = await ctx.session.results?.get(resultId);
  } catch {
    // The store's own words (its address, its refusal) are the operator's, not the model's.
    return failed(`Result '${resultId}' cannot be read now: the session's store cannot be reached; try again in a moment`);
  }
  if (!kept) {
    return failed(
      `Result '${resultId}' not found: a cut result is kept for ${MAX_AGE_MS / 60_000} minutes after its last read, ` +
        `and the oldest go first when a session keeps too much`,
    );
  }
  if (kept.toolbox !== id.toolbox) return failed(`Result '${resultId}' belongs to toolbox '${kept.toolbox}'`);
  const total = kept.starts.at(-1)!;
  if (offset > total) return failed(`Offset ${offset} is past the end of result '${resultId}' (${total})`);
  return Success(readPage(kept, offset));
}

function argumentProblems(args: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (typeof args.id !== "string" || args.id === "") problems.push("'id': expected the result's id, a non-empty string");
  const { offset } = args;
  if (offset !== undefined && (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0)) {
    problems.push("'offset': expected a non-negative integer");
  }
  const unknown = Object.keys(args).filter((key) => key !== "id" && key !== "offset");
  for (const key of unknown) problems.push(`'${key}': unknown argument (expected 'id' and 'offset')`);
  return problems;
}
