/**
 * "Connect your account" (issue 49 §3), as a call asks it: the member lacks a secret a server of the
 * call needs, so the call asks them, in their client, to open a page of `serve --http` where they
 * paste it (a URL elicitation related to the call: on 2026-07-28 an input request of the call's
 * result, answered by its retry). The call waits until the page was sent, says the elicitation is
 * complete, and goes on; the server then starts with what was provided. A client that cannot open
 * URLs gets the page's address in the call's error, for the user to open and call again.
 */
import { CONNECT_TTL_MS, type SecretAsking } from "../../auth/connect-flow.ts";
import { messageOf } from "../../protocol/errors.ts";
import type { Upstream } from "../../protocol/upstream.ts";
import type { CallRequest } from "./step.ts";

/** The `from` of our question: its input request key in a 2026-07-28 result starts with it. */
export const CONNECT_FROM = "mcp-workbench/connect";

/**
 * Asks for secret `name` of server `where`; undefined once the member provided it, else why the
 * call cannot go on (with the page's address when the client cannot open it).
 */
export async function askForSecret(
  asking: SecretAsking,
  upstream: Upstream | undefined,
  request: CallRequest,
  where: { toolbox: string; server: string },
  name: string,
): Promise<string | undefined> {
  const lacks = `Secret '${name}' is not set for client '${asking.member}'`;
  let page: { id: string; url: string };
  try {
    page = await asking.flow.open({ client: asking.member, name, server: `${where.toolbox}/${where.server}` });
  } catch (error) {
    return `${lacks}, and no page to provide it can be made now: ${messageOf(error)}`;
  }
  if (upstream?.capabilities?.elicitation?.url === undefined) {
    return `${lacks}: open ${page.url} to provide it (within ${CONNECT_TTL_MS / 60_000} minutes), then call again`;
  }
  // Waited for before the question goes: a user quick to send the page is not missed.
  const stop = new AbortController();
  const signal = AbortSignal.any([request.signal, AbortSignal.timeout(CONNECT_TTL_MS), stop.signal]);
  const sent = asking.flow.wait(page.id, signal);
  try {
    const answer = await upstream.request("elicitation/create", {
      mode: "url",
      message: `Server '${where.server}' (toolbox '${where.toolbox}') needs your secret '${name}': open the page to provide it. ` +
        `It is kept for you alone, encrypted, and used for your calls only`,
      url: page.url,
      elicitationId: page.id,
    }, { signal: request.signal, relatedRequestId: request.id, timeout: CONNECT_TTL_MS, from: CONNECT_FROM });
    if (answer.action !== "accept") {
      stop.abort();
      return `${lacks}: the user did not open the page to provide it (${String(answer.action)})`;
    }
  } catch (error) {
    stop.abort();
    if (request.signal.aborted) return "the client cancelled the call while the user was asked for a secret";
    return `${lacks}: the client did not ask the user (${messageOf(error)}); open ${page.url} to provide it, then call again`;
  }
  if (!await sent) {
    return request.signal.aborted
      ? "the client cancelled the call while the user was asked for a secret"
      : `${lacks}: the page was not sent within ${CONNECT_TTL_MS / 60_000} minutes`;
  }
  await upstream.notify("notifications/elicitation/complete", { elicitationId: page.id }).catch(() => {});
  return undefined;
}
