/**
 * The client a command's servers see (check, tools, call, approve): it declares what chat clients
 * declare (elicitation, sampling, roots), so that a server that lists tools by the client's
 * capabilities (server-everything adds eight for elicitation, sampling and roots) lists to `check`
 * and `approve` what it lists to a session, and its pins match what sessions see (issue 37 §3).
 * A terminal is no chat: a question is declined, sampling refused, and the roots are none.
 */
import type { ClientCapabilities, LoggingLevel } from "../protocol/sdk.ts";
import { errorWithCode } from "../protocol/errors.ts";
import type { Upstream } from "../protocol/upstream.ts";

/** What the command declares: elicitation of both modes, sampling and roots, as chat clients do. */
export const COMMAND_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: { listChanged: true },
};

/** -32601: what the command does not do. */
const METHOD_NOT_FOUND = -32601;

export function commandUpstream(say: (line: string) => void): Upstream {
  let toldQuestion = false;
  return {
    capabilities: COMMAND_CAPABILITIES,
    logLevel: undefined as LoggingLevel | undefined,
    request(method, _params, options) {
      if (method === "roots/list") return Promise.resolve({ roots: [] });
      if (method === "elicitation/create") {
        if (!toldQuestion) say(`${options.from ? `[${options.from}] ` : ""}A server asked a question, which a command cannot answer: declined (ask it from a chat client instead)`);
        toldQuestion = true;
        return Promise.resolve({ action: "decline" });
      }
      return Promise.reject(errorWithCode(METHOD_NOT_FOUND, `A command cannot answer '${method}': use the workbench from a chat client for it`));
    },
    notify: () => Promise.resolve(),
    onLogLevel: () => () => {},
    onRootsChanged: () => () => {},
  };
}
