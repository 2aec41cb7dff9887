/**
 * Step: send, the last. The resolved tool is called through its toolbox's server, with the
 * toolbox's call limits, the client's cancellation, progress and answers; the result goes to the
 * session's URI table (resources it names); a failure becomes the text the client sees, a
 * server's -32042 as url-required.ts says.
 */
import { messageOf } from "../../protocol/errors.ts";
import { urlRequired } from "./url-required.ts";
import { Failure, Success, whereOf } from "./values.ts";
import type { CallResult, ToolCall } from "./step.ts";

/** Not async: the call's promise with one step for its result and one for its failure (issue 42). */
export function send(call: ToolCall): CallResult {
  const { id, session, request } = call;
  let calling;
  try {
    calling = call.target!.call(id.name, call.args, {
      // The intake's cancellation is watched without a signal; a request made without one (run_code's inner calls) gives its signal.
      signal: request.cancel ? undefined : request.signal,
      cancel: request.cancel,
      onProgress: request.onProgress,
      relatedRequestId: request.id,
      upstream: session.upstream,
      input: request.input,
      meta: call.meta,
    });
  } catch (error) {
    calling = Promise.reject(error);
  }
  return calling.then((result) => {
    session.onToolResult?.(id, result);
    return Success(result);
  }).catch((error) => {
    call.note.thrown = error;
    const text = `Error executing tool '${id.name}' ${whereOf(id)}: ${messageOf(error)}`;
    return urlRequired(error, text, session.clientOpensUrls?.() ?? false) ?? Failure(text);
  });
}
