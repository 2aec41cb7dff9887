/**
 * The page a member provides a secret on (issue 49 §3): `GET /connect/<id>` shows a form for the
 * secret the id was made for (auth/connect-flow.ts), `POST /connect/<id>` keeps what was pasted in
 * the member vault, for that member and that name alone, and tells the call that asked. The id is
 * the page's only key (a browser brings no bearer token): one-time, short-lived, unguessable, and
 * never made into a store key unless it has the shape of one. The page loads nothing, runs no
 * script, cannot be framed and is never cached; a POST from another origin is refused.
 */
import { CALLBACK_PATH, type ConnectFlow, type ConnectRequest } from "../../auth/connect-flow.ts";
import { MAX_VALUE_BYTES, type MemberVault } from "../../auth/member-vault.ts";
import { messageOf } from "../../protocol/errors.ts";
import { readBounded } from "../../transport/bounded-body.ts";

export const CONNECT_PATH = "/connect/";
/** A form's body is read up to this (a secret is at most 16 KiB, see member-vault.ts). */
const MAX_FORM_BYTES = 64 * 1024;
const FORM_READ_MS = 10_000;

/** A login page's answer: on to the authorization server, never cached, no referrer (the page's id is its key). */
const ONWARD = { "cache-control": "no-store", "referrer-policy": "no-referrer" };

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

export function connectPage(flow: ConnectFlow, vault: MemberVault, log: (line: string) => void) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname === CALLBACK_PATH) return await loggedIn(flow, url);
    const id = url.pathname.slice(CONNECT_PATH.length);
    if (request.method === "GET") {
      // A login's page: on to the authorization server of the server it is for.
      const login = await flow.loginPage(id).catch(() => undefined);
      if (login) return new Response(null, { status: 302, headers: { ...ONWARD, location: login } });
      const asked = await flow.read(id).catch(() => undefined);
      return asked ? page(200, form(asked)) : gone();
    }
    if (request.method !== "POST") return page(405, "<p>Only GET and POST are answered here.</p>", { allow: "GET, POST" });
    // Its own page's host (the scheme may differ behind a proxy that ends TLS).
    const origin = request.headers.get("origin");
    if (origin !== null && hostOf(origin) !== url.host) return page(403, "<p>This form is sent from its own page only.</p>");
    // No body is read for a page that is none.
    if (!await flow.read(id).catch(() => undefined)) return gone();
    const value = await pasted(request);
    if (value === undefined) return page(400, "<p>Paste the secret into the field, then send the form.</p>");
    if (new TextEncoder().encode(value).length > MAX_VALUE_BYTES) return page(400, `<p>A secret is at most ${MAX_VALUE_BYTES} bytes.</p>`);
    const asked = await flow.take(id).catch(() => undefined);
    if (!asked) return gone();
    try {
      await vault.put({ client: asked.client, name: asked.name, server: asked.server }, value);
      await flow.done(id);
    } catch (error) {
      // Never the value: the vault's own errors name the secret, not what was pasted.
      log(`A secret provided for client '${asked.client}' could not be kept: ${messageOf(error)}`);
      return page(500, "<p>The secret could not be kept. Ask the call again for a new page.</p>");
    }
    log(`Client '${asked.client}' provided secret '${asked.name}' (asked by '${asked.server}')`);
    const saved = `Your '${escape(asked.name)}' is kept for you alone. You can close this tab and go back to your MCP client.`;
    return page(200, `<h1>Saved</h1><p>${saved}</p>`);
  };
}

/**
 * A member's login came back from the authorization server: the code (or its error) goes to the
 * call that began it, wherever it waits, once; that call trades the code for the member's tokens.
 */
async function loggedIn(flow: ConnectFlow, url: URL): Promise<Response> {
  const state = url.searchParams.get("state") ?? "";
  if (!await flow.takeLogin(state).catch(() => false)) return gone();
  const code = url.searchParams.get("code");
  const error = url.searchParams.get("error_description") ?? url.searchParams.get("error") ?? "no code in the redirect";
  await flow.done(state, code ? { code } : { error: error.slice(0, 300) });
  return code
    ? page(200, "<h1>Logged in</h1><p>You can close this tab and go back to your MCP client.</p>")
    : page(400, `<h1>Not logged in</h1><p>The authorization server said: ${escape(error.slice(0, 300))}</p>`);
}

function form(asked: ConnectRequest): string {
  return `<h1>Provide your '${escape(asked.name)}'</h1>` +
    `<p>Server '${escape(asked.server)}' needs your secret '${escape(asked.name)}' to act as you (client ` +
    `'${escape(asked.client)}'). It is kept for you alone, encrypted, and sent only to the servers that name it.</p>` +
    `<form method="post"><label>${escape(asked.name)} <input type="password" name="value" autocomplete="off" required></label> ` +
    `<button type="submit">Save</button></form>`;
}

/** The form's `value`, trimmed; undefined when there is none, or the body is not a form of a bounded size. */
async function pasted(request: Request): Promise<string | undefined> {
  if (!request.headers.get("content-type")?.toLowerCase().startsWith("application/x-www-form-urlencoded")) return undefined;
  const text = await boundedText(request);
  const value = text === undefined ? undefined : new URLSearchParams(text).get("value")?.trim();
  return value ? value : undefined;
}

/** The body as text, read for at most FORM_READ_MS and MAX_FORM_BYTES; undefined past either. */
async function boundedText(request: Request): Promise<string | undefined> {
  const bytes = await readBounded(request.body, MAX_FORM_BYTES, FORM_READ_MS);
  return bytes && new TextDecoder().decode(bytes);
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

function gone(): Response {
  return page(404, "<p>This page was used already or has expired. Call the tool again for a new one.</p>");
}

function page(status: number, body: string, extra: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP Workbench</title>` +
    `<meta name="viewport" content="width=device-width"></head><body style="font-family:sans-serif;max-width:40em;margin:2em auto">` +
    `${body}</body></html>`;
  return new Response(html, { status, headers: { ...HEADERS, ...extra } });
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
