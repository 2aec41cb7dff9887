/**
 * The client a command's servers see (check, tools, call, approve): it declares what chat clients
 * declare (elicitation, sampling, roots), so that a server that lists tools by the client's
 * capabilities (server-everything adds eight for elicitation, sampling and roots) lists to `check`
 * and `approve` what it lists to a session, and its pins match what sessions see (issue 37 §3);
 * so does every extension a session declared to them (see sessionExtensions).
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

/**
 * The extensions sessions declared to servers, read from the capability keys the listing cache
 * keeps their lists under: a command declares them too, so that a tool a server lists only to a
 * client with an extension (an MCP Apps UI) is listed to `check` and `approve` as well, pinned by
 * the one and approved by the other, as sessions see it. The first declaration of a name stands.
 */
export function sessionExtensions(capabilityKeys: readonly string[]): Record<string, object> | undefined {
  const found: Record<string, object> = {};
  for (const key of capabilityKeys) {
    let declared: unknown;
    try {
      declared = (JSON.parse(key) as { extensions?: unknown }).extensions;
    } catch {
      continue;
    }
    if (typeof declared !== "object" || declared === null || Array.isArray(declared)) continue;
    for (const [name, settings] of Object.entries(declared)) {
      if (!Object.hasOwn(found, name) && typeof settings === "object" && settings !== null) found[name] = settings;
    }
  }
  return Object.keys(found).length > 0 ? found : undefined;
}

/** -32601: what the command does not do. */
const METHOD_NOT_FOUND = -32601;

export function commandUpstream(say: (line: string) => void, extensions?: Record<string, object>): Upstream {
  let toldQuestion = false;
  return {
    capabilities: extensions ? { ...COMMAND_CAPABILITIES, extensions } : COMMAND_CAPABILITIES,
    logLevel: undefined as LoggingLevel | undefined,
    request(method, _params, options) {
      if (method === "roots/list") return Promise.resolve({ roots: [] });
      if (method === "elicitation/create") {
        if (!toldQuestion) {
          say(
            `${
              options.from ? `[${options.from}] ` : ""
            }A server asked a question, which a command cannot answer: declined (ask it from a chat client instead)`,
          );
        }
        toldQuestion = true;
        return Promise.resolve({ action: "decline" });
      }
      return Promise.reject(
        errorWithCode(METHOD_NOT_FOUND, `A command cannot answer '${method}': use the workbench from a chat client for it`),
      );
    },
    notify: () => Promise.resolve(),
    onLogLevel: () => () => {},
    onRootsChanged: () => () => {},
  };
}
