/**
 * One downstream tool call by its structured identifier: the path every call of a tool behind the
 * workbench takes, whoever asks for it (use_tool, the `call` subcommand). Checks that go before a
 * call reaches a server (the user's approval: call-approval.ts), and what is recorded of it (the
 * audit log: call-record.ts), belong here, so that no caller can skip them.
 */
import type { CallToolResult } from "../protocol/sdk.ts";
import { Failure, type Result, Success, type ToolContext } from "./tool.ts";
import { useToolToolboxNotFound } from "./lookup.ts";
import { alternatives, didYouMean } from "../config/suggest.ts";
import { checkArguments } from "./argument-check.ts";
import type { OpenToolbox } from "../toolboxes/registry.ts";
import { messageOf } from "../protocol/errors.ts";
import { withoutSchemaKey } from "./schema-key.ts";
import { urlRequired } from "./url-required.ts";
import { approveCall, approvedRetry } from "./call-approval.ts";
import { type CallNote, recordCall } from "./call-record.ts";
import { withheldError } from "../toolboxes/withheld.ts";
import { CALL_RECHECK_MS } from "../toolboxes/pin-store.ts";

/** A tool behind the workbench, as use_tool names it. */
export interface ToolId {
  toolbox: string;
  server: string;
  name: string;
}

/** Calls the tool through its toolbox's server; every failure is a value with the text the client sees. */
export async function callTool(id: ToolId, args: Record<string, unknown>, ctx: ToolContext): Promise<Result<CallToolResult>> {
  if (!ctx.audit) return await reach(id, args, ctx, {});
  const started = Date.now();
  const clock = performance.now();
  const note: CallNote = {};
  const result = await reach(id, args, ctx, note);
  recordCall(ctx.audit, { id, args, ctx, note, result, started, durationMs: performance.now() - clock });
  return result;
}

async function reach(id: ToolId, args: Record<string, unknown>, ctx: ToolContext, note: CallNote): Promise<Result<CallToolResult>> {
  const where = `in server '${id.server}' (toolbox '${id.toolbox}')`;
  if (!Object.hasOwn(ctx.config.toolboxes, id.toolbox)) return Failure(useToolToolboxNotFound(ctx.config, id.toolbox));
  // A toolbox search_tools answered with is opened here: the model found the tool without open_toolbox.
  const opens = ctx.opensToolboxes?.() || ctx.catalog?.found.has(id.toolbox) === true;
  const toolbox = ctx.registry.get(id.toolbox) ?? (opens ? await ctx.registry.open(id.toolbox) : undefined);
  if (!toolbox) {
    return Failure(
      `Error executing tool: Toolbox '${id.toolbox}' is not open; ` +
        `call open_toolbox with {"toolbox_name": ${JSON.stringify(id.toolbox)}} first`,
    );
  }
  const server = toolbox.servers.find((s) => s.name === id.server);
  if (!server) {
    const servers = toolbox.servers.map((s) => s.name);
    return Failure(
      `Error executing tool: Server '${id.server}' not found in toolbox '${id.toolbox}'${didYouMean(id.server, servers)}`,
    );
  }
  const connected = await ctx.registry.connected(server, ctx.signal);
  if (!connected.ok) return Failure(`Error executing tool '${id.name}' ${where}: ${connected.error}`);
  const { connection } = connected;
  // Pins first: a server seen for the first time is pinned; the lock read a moment ago will do.
  await server.trust(CALL_RECHECK_MS);
  // A tool the server has just added (tools/list_changed) is found once its list has come.
  const find = () => server.tools.find((t) => t.name === id.name);
  const held = () => server.withheld.find((t) => t.name === id.name);
  // Refused only by the lock as it is now: an approval made a moment ago counts.
  if (held()) await server.trust();
  const definition = find() ?? (held() ? undefined : await connection.toolsSettled().then(find));
  const withheld = held();
  if (withheld) {
    note.outcome = "withheld";
    return Failure(withheldError(id.toolbox, id.server, withheld));
  }
  if (!definition) {
    return Failure(`Error executing tool: Tool '${id.name}' not found ${where}${elsewhere(toolbox, id.server, id.name)}`);
  }
  if (server.config.validateArguments) {
    const check = checkArguments(definition, args);
    if (!check.ok) {
      return Failure(
        `Invalid arguments for tool '${id.name}' ${where}:\n${check.problems.map((p) => `- ${p}`).join("\n")}\n` +
          `inputSchema: ${JSON.stringify(withoutSchemaKey(definition.inputSchema))}`,
      );
    }
  }
  const approval = await approveCall(id, args, definition, server.config, ctx);
  if (!approval.approved) {
    if (!approval.cancelled) note.outcome = "declined";
    return Failure(`Error executing tool '${id.name}' ${where}: ${approval.reason}`);
  }
  try {
    const result = await server.callTool(connection, id.name, approval.args, {
      signal: ctx.signal,
      onProgress: ctx.onProgress,
      relatedRequestId: ctx.requestId,
      upstream: ctx.upstream,
      input: ctx.input,
    });
    if (ctx.onToolResult) {
      const owner = ctx.registry.configured.find((c) => c.toolbox === id.toolbox && c.server === id.server);
      if (owner) ctx.onToolResult(owner, result);
    }
    if (approval.asked) approvedRetry(id, args, result, ctx);
    return Success(result);
  } catch (error) {
    const text = `Error executing tool '${id.name}' ${where}: ${messageOf(error)}`;
    return urlRequired(error, text, ctx.clientOpensUrls?.() ?? false) ?? Failure(text);
  }
}

/**
 * The tail of "tool not found": the connected servers of the toolbox that have a tool of exactly
 * that name (the model picked the wrong server), else this server's closest tool names.
 */
function elsewhere(toolbox: OpenToolbox, serverName: string, name: string): string {
  const others = toolbox.servers.filter((s) =>
    s.name !== serverName && s.tools.some((tool) => tool.name === name)
  );
  if (others.length > 0) return `. Did you mean server ${alternatives(others.map((s) => s.name))}?`;
  const server = toolbox.servers.find((s) => s.name === serverName);
  return didYouMean(name, (server?.tools ?? []).map((tool) => tool.name));
}
