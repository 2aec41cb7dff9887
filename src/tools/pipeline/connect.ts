/**
 * Step: connect (issue 49 §3). A call of a server for which the session's member lacks a secret
 * (`${client:NAME}` that neither the file nor the member set), or a login of their own to a remote
 * server that needs OAuth, asks the member for it first (connect-ask.ts), and goes on once it was
 * given: resolve then starts the server with it. A login found needed only by the server's first
 * start is asked then, and the call (not sent yet) goes once more. Without a way to ask (stdio, the
 * commands), the call goes on and its server fails saying what is missing.
 */
import type { Lacking } from "../../toolboxes/start-credentials.ts";
import { askForLogin, askForSecret } from "./connect-ask.ts";
import { Failure, whereOf } from "./values.ts";
import type { Step, ToolCall } from "./step.ts";

export const connect: Step = (next) => async (call) => {
  const { session, id } = call;
  if (!session.connect) return next(call);
  const lacks = await session.offer.lacking?.(id);
  if (lacks) {
    const failed = await ask(call, lacks);
    if (failed !== undefined) return Failure(`Error executing tool '${id.name}' ${whereOf(id)}: ${failed}`);
    // Its toolbox may have failed to open without it: resolve opens it now.
    call.provided = true;
    return next(call);
  }
  const result = await next(call);
  if (result.ok) return result;
  const found = await session.offer.lacking?.(id);
  if (!found?.login) return result;
  const failed = await ask(call, found);
  if (failed !== undefined) return Failure(`Error executing tool '${id.name}' ${whereOf(id)}: ${failed}`);
  call.provided = true;
  return next(call);
};

/** Asks for what the server lacks; undefined once given (or nothing to ask), else why not. */
function ask(call: ToolCall, lacks: Lacking): Promise<string | undefined> {
  const { session, id, request } = call;
  const asking = session.connect!;
  const { secret, login } = lacks;
  // Calls at the same time (a script's, in parallel) that need the same wait for one question.
  const once = (what: string, ask: () => Promise<string | undefined>) => asking.flow.once(JSON.stringify([asking.member, what]), ask);
  if (secret !== undefined) return once(`secret ${secret}`, () => askForSecret(asking, session.upstream, request, id, secret));
  if (login) return once(`login ${id.toolbox}/${id.server}`, () => askForLogin(asking, session.upstream, request, { ...id, ...login }));
  return Promise.resolve(undefined);
}
