/**
 * "Connect your account" (issue 49 §3), as a call asks it: the member lacks a secret a server of the
 * call needs, or a login of their own to a remote server that needs OAuth, so the call asks them, in
 * their client, to open a page (a URL elicitation related to the call: on 2026-07-28 an input request
 * of the call's result, answered by its retry): the workbench's form for the secret, or the
 * authorization server's login, which comes back to the workbench's `/connect/callback`. The call
 * waits until the page ended, says the elicitation is complete, and goes on; the server then starts
 * with what the member gave. A client that cannot open URLs is not asked (see cannotOpen).
 */
import { CONNECT_TTL_MS, type PageOutcome, type SecretAsking } from "../../auth/connect-flow.ts";
import type { PendingLogin } from "../../auth/member-login.ts";
import type { RemoteServerConfig } from "../../config/index.ts";
import { messageOf } from "../../protocol/errors.ts";
import type { Upstream } from "../../protocol/upstream.ts";
import type { Lacking } from "../../toolboxes/start-credentials.ts";
import type { CallRequest } from "./step.ts";

/** The `from` of our question: its input request key in a 2026-07-28 result starts with it. */
export const CONNECT_FROM = "mcp-workbench/connect";
const MINUTES = CONNECT_TTL_MS / 60_000;

type Where = { toolbox: string; server: string };

/** Why the call cannot go on; undefined once the member gave what was asked. */
type Asked = Promise<string | undefined>;

/**
 * Asks the member for what a server lacks (a secret, or a login of their own); calls at the same
 * time (a script's, in parallel; an open and a call) that need the same wait for one question.
 */
export function askFor(asking: SecretAsking, upstream: Upstream | undefined, request: CallRequest, where: Where, lacks: Lacking): Asked {
  const { secret, login } = lacks;
  const once = (what: string, ask: () => Asked) => asking.flow.once(JSON.stringify([asking.member, what]), ask);
  if (secret !== undefined) return once(`secret ${secret}`, () => askForSecret(asking, upstream, request, where, secret));
  if (login) return once(`login ${where.toolbox}/${where.server}`, () => askForLogin(asking, upstream, request, { ...where, ...login }));
  return Promise.resolve(undefined);
}

/** Asks for secret `name` of server `where` on the workbench's page. */
async function askForSecret(
  asking: SecretAsking,
  upstream: Upstream | undefined,
  request: CallRequest,
  where: Where,
  name: string,
): Asked {
  const lacks = `Secret '${name}' is not set for client '${asking.member}'`;
  const set = `serve.clients.${asking.member}.secrets.${name}`;
  if (!opensUrls(upstream)) return cannotOpen(lacks, `provide it, or have ${set} set in the configuration`);
  let page: { id: string; url: string };
  try {
    page = await asking.flow.open({ client: asking.member, name, server: `${where.toolbox}/${where.server}` });
  } catch (error) {
    return `${lacks}, and no page to provide it can be made now: ${messageOf(error)}`;
  }
  const message = `Server '${where.server}' (toolbox '${where.toolbox}') needs your secret '${name}': open the page to provide it. ` +
    `It is kept for you alone, encrypted, and used for your calls only`;
  return await askToOpen(asking, upstream, request, { ...page, message, lacks, what: "provide it" }, () => Promise.resolve(undefined));
}

/** Asks the member to log in to remote server `where` as themselves (their own tokens, kept in the vault). */
async function askForLogin(
  asking: SecretAsking,
  upstream: Upstream | undefined,
  request: CallRequest,
  where: Where & { config: RemoteServerConfig; scope?: string },
): Asked {
  const lacks = `Server '${where.server}' (toolbox '${where.toolbox}') needs client '${asking.member}' to log in as themselves`;
  if (!opensUrls(upstream)) return cannotOpen(lacks, "log in");
  let pending: PendingLogin | undefined;
  try {
    pending = await asking.flow.login({ client: asking.member, config: where.config, scope: where.scope });
  } catch (error) {
    return `${lacks}, and it cannot be begun now: ${messageOf(error)}`;
  }
  if (!pending) return undefined;
  const login = pending;
  const message = `Log in to server '${where.server}' (toolbox '${where.toolbox}') as yourself, so that MCP Workbench acts as you there`;
  const page = { id: login.state, url: login.url, message, lacks, what: "log in" };
  return await askToOpen(asking, upstream, request, page, async (outcome) => {
    if (outcome.code === undefined) return `${lacks}: the login failed (${outcome.error ?? "no code came back"})`;
    try {
      await login.finish(outcome.code);
      return undefined;
    } catch (error) {
      return `${lacks}: the login failed (${messageOf(error)})`;
    }
  });
}

/**
 * Why a client that cannot open URLs is not asked: the page's address would be put in the call's
 * result, before the model (and whatever a prompt injection makes it do with it); the id is the
 * page's only key.
 */
function cannotOpen(lacks: string, what: string): string {
  return `${lacks}: this client cannot open the page to do so (it declared no URL elicitation); use a client that does to ${what}`;
}

/** The client declared URL elicitation: it may be asked to open a page. */
function opensUrls(upstream: Upstream | undefined): upstream is Upstream {
  return upstream?.capabilities?.elicitation?.url !== undefined;
}

interface Page {
  id: string;
  url: string;
  message: string;
  lacks: string;
  /** What the member does there, for the error of a client that cannot open it. */
  what: string;
}

/** Puts the page to the member and waits for its end (then `ended` says whether what came is good). */
async function askToOpen(
  asking: SecretAsking,
  upstream: Upstream,
  request: CallRequest,
  page: Page,
  ended: (outcome: PageOutcome) => Asked,
): Asked {
  // Waited for before the question goes: a user quick to send the page is not missed.
  const stop = new AbortController();
  const signal = AbortSignal.any([AbortSignal.timeout(CONNECT_TTL_MS), stop.signal]);
  const outcome = asking.flow.wait(page.id, signal);
  const cancelled = () => request.signal.aborted ? "the client cancelled the call while the user was asked to connect" : undefined;
  request.signal.addEventListener("abort", () => stop.abort(), { once: true });
  try {
    const question = { mode: "url", message: page.message, url: page.url, elicitationId: page.id };
    const answer = await upstream.request("elicitation/create", question, {
      signal: request.signal,
      relatedRequestId: request.id,
      timeout: CONNECT_TTL_MS,
      from: CONNECT_FROM,
    });
    if (answer.action !== "accept") {
      stop.abort();
      return `${page.lacks}: the user did not open the page to ${page.what} (${String(answer.action)})`;
    }
  } catch (error) {
    stop.abort();
    return cancelled() ?? `${page.lacks}: the client did not ask the user to ${page.what} (${messageOf(error)})`;
  }
  const came = await outcome;
  if (!came) return cancelled() ?? `${page.lacks}: the page did not come back within ${MINUTES} minutes`;
  const failed = await ended(came);
  if (failed === undefined) await upstream.notify("notifications/elicitation/complete", { elicitationId: page.id }).catch(() => {});
  return failed;
}
