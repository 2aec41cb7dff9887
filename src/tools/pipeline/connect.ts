/**
 * Step: connect (issue 49 §3). A call of a server for which the session's member lacks a secret
 * (`${client:NAME}` that neither the file nor the member set), or a login of their own to a remote
 * server that needs OAuth, asks the member for it first (connect-ask.ts), and goes on once it was
 * given: resolve then starts the server with it. A login found needed only by the server's first
 * start is asked then, and the call (not sent yet) goes once more. Without a way to ask (stdio, the
 * commands), the call goes on and its server fails saying what is missing.
 */
import type { Lacking } from "../../toolboxes/start-credentials.ts";
import { askFor } from "./connect-ask.ts";
import { Failure, whereOf } from "./values.ts";
import type { Next, Step, ToolCall } from "./step.ts";

export const connect: Step = (next) => async (call) => {
  const { session, id } = call;
  if (!session.connect) return next(call);
  const lacks = await session.offer.lacking?.(id);
  if (lacks) return await askThenGo(call, lacks, next);
  const result = await next(call);
  if (result.ok) return result;
  const found = await session.offer.lacking?.(id);
  return found?.login ? await askThenGo(call, found, next) : result;
};

/** Asks for what the server lacks, then sends the call on (its toolbox may have failed to open without it: resolve opens it). */
async function askThenGo(call: ToolCall, lacks: Lacking, next: Next) {
  const { session, id, request } = call;
  const failed = await askFor(session.connect!, session.upstream, request, id, lacks);
  if (failed !== undefined) return Failure(`Error executing tool '${id.name}' ${whereOf(id)}: ${failed}`);
  call.provided = true;
  return next(call);
}
