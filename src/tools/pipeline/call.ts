/**
 * Step 4 of a tool call, call: the resolved tool is called through its toolbox's server, with the
 * toolbox's call limits, the client's cancellation, progress and answers; the result goes to the
 * session's URI table (resources it names); a failure becomes the text the client sees, a
 * server's -32042 as url-required.ts says.
 */
import type { CallToolResult, Progress, RequestId } from "../../protocol/sdk.ts";
import type { CallInput } from "../../protocol/wire.ts";
import type { Upstream } from "../../protocol/upstream.ts";
import { messageOf } from "../../protocol/errors.ts";
import type { ConfiguredServer, ToolboxRegistry } from "../../toolboxes/registry.ts";
import type { Resolved } from "./resolve.ts";
import type { CallCancel } from "../../downstream/call-cancel.ts";
import { urlRequired } from "./url-required.ts";
import { Failure, type Result, Success, type ToolId, whereOf } from "./values.ts";

/** What calling needs: the request it serves and where its result goes besides the caller. */
export interface Calling {
  /** The session's toolboxes: the server definition behind the call, for onToolResult. */
  registry: ToolboxRegistry;
  /** The session the call works for: a server's questions and log messages during it go there. */
  upstream?: Upstream;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /**
   * The client's cancellation as the intake made it, whose signal is made only when asked for
   * (issue 42): used in place of `signal` by the context it was made for (`cancel.owner`) only.
   */
  cancel?: CallCancel;
  /** The id of the client's tools/call request, for requests a server makes while serving it. */
  requestId?: RequestId;
  /** Set when the client asked for progress (a progressToken): reports progress to it. */
  onProgress?: (progress: Progress) => void;
  /** The client's answers to a server's input requests (2026-07-28), for the server's tool. */
  input?: CallInput;
  /** True when the client declared URL elicitation: it opens the URLs a server's -32042 names itself. */
  clientOpensUrls?: () => boolean;
  /** A downstream tool's result, for the URIs it names (see src/upstream/catalog/learn-uris.ts). */
  onToolResult?: (owner: ConfiguredServer, result: CallToolResult) => void;
}

/** Not async: the call's promise with one step for its result and one for its failure (issue 42). */
export function sendCall(id: ToolId, args: Record<string, unknown>, resolved: Resolved, ctx: Calling): Promise<Result<CallToolResult>> {
  let calling: Promise<CallToolResult>;
  try {
    // A copy of the context with a signal of its own (run_code's) is not the cancellation's owner.
    const cancel = ctx.cancel?.owner === ctx ? ctx.cancel : undefined;
    calling = resolved.slot.callTool(resolved.serverSession, id.name, args, {
      signal: cancel ? undefined : ctx.signal,
      cancel,
      onProgress: ctx.onProgress,
      relatedRequestId: ctx.requestId,
      upstream: ctx.upstream,
      input: ctx.input,
    });
  } catch (error) {
    calling = Promise.reject(error);
  }
  return calling.then((result) => {
    if (ctx.onToolResult) {
      const owner = ctx.registry.configured.find((c) => c.toolbox === id.toolbox && c.server === id.server);
      if (owner) ctx.onToolResult(owner, result);
    }
    return Success(result);
  }).catch((error) => {
    const text = `Error executing tool '${id.name}' ${whereOf(id)}: ${messageOf(error)}`;
    return urlRequired(error, text, ctx.clientOpensUrls?.() ?? false) ?? Failure(text);
  });
}
