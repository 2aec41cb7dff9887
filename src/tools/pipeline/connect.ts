/**
 * Step: connect (issue 49 §3). A call of a server for which the session's member lacks a secret
 * (`${client:NAME}` that neither the file nor the member set) asks the member for it first, on a
 * page of `serve --http` (tools/connect-ask.ts), and goes on once it was provided: resolve then
 * starts the server with it. Without a way to ask (stdio, the commands), the call goes on and its
 * server fails saying which secret is missing and where to set it.
 */
import { askForSecret } from "./connect-ask.ts";
import { Failure, whereOf } from "./values.ts";
import type { Step } from "./step.ts";

export const connect: Step = async (call, next) => {
  const { session, id } = call;
  if (!session.connect) return next(call);
  const lacks = await session.offer.lacking?.(id);
  if (!lacks) return next(call);
  const { secret } = lacks;
  const failed = secret === undefined ? undefined : await askForSecret(session.connect, session.upstream, call.request, id, secret);
  if (failed !== undefined) return Failure(`Error executing tool '${id.name}' ${whereOf(id)}: ${failed}`);
  // Its toolbox may have failed to open without the secret: resolve opens it now.
  call.provided = true;
  return next(call);
};
