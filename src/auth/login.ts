/**
 * One interactive OAuth login of a remote server: it first asks the server as any client would and
 * reads its refusal (metadata URL, scope), listens on a loopback port for the redirect, hands the
 * authorization URL to whoever shows it to the user (a terminal, or the MCP client in front as a
 * URL elicitation), then stores the client registration and tokens where the workbench finds them.
 */
import { auth } from "../protocol/sdk-remote.ts";
import type { LoginSupport } from "../platform/types.ts";
import type { RemoteServerConfig } from "../config/index.ts";
import { NAME } from "../protocol/version.ts";
import type { AuthStore } from "./auth-store.ts";
import { serverUrlOf } from "../address/server-url.ts";
import { joinScopes, WorkbenchOAuthProvider } from "./oauth-provider.ts";
import { challengeOf } from "./challenge.ts";
import { NoLoginNeeded, oauthFailureText } from "./oauth-failure.ts";

/** How long a login waits for the browser to come back. */
export const LOGIN_WAIT_MS = 5 * 60_000;
const CALLBACK_PATH = "/callback";

export interface LoginOptions {
  serve: LoginSupport["serve"];
  store: AuthStore;
  config: RemoteServerConfig;
  /** Scopes asked for besides the challenge's and the configured ones (a step-up). */
  scope?: string;
  /** Shows the user where to log in; the login then waits for the redirect. */
  onAuthorizationUrl(url: URL): void | Promise<void>;
  /** Where the user is sent back to once logged in: a page that says what happens next. */
  doneText: string;
  /** Ends the wait early (the user declined, the client left). */
  signal?: AbortSignal;
  waitMs?: number;
}

/** Logs in and stores the tokens; resolves with the store file's path, rejects with the reason. */
export async function logIn(options: LoginOptions): Promise<string> {
  const { store, config } = options;
  const callback = waitForCallback(options.doneText);
  const serverUrl = serverUrlOf(config);
  // The redirect URL the stored client was registered with, if its port is free: no new registration.
  const loopback = await options.serve(callback.handler, registeredPort((await store.load(serverUrl)).redirectUrl));
  try {
    // What the server's refusal names: where its metadata is, and the scope it wants.
    const challenge = await challengeOf(config);
    if (challenge.open) throw new NoLoginNeeded();
    const scope = joinScopes(options.scope, challenge.scope, config.oauth?.scopes?.join(" "));
    const { resourceMetadataUrl } = challenge;
    let shown: Promise<void> | undefined;
    const provider = new WorkbenchOAuthProvider({
      store,
      serverUrl,
      oauth: config.oauth,
      mode: {
        kind: "login",
        redirectUrl: `${loopback.url}${CALLBACK_PATH}`,
        scope,
        onAuthorizationUrl: (url) => void (shown = Promise.resolve(options.onAuthorizationUrl(url))),
      },
    });
    const started = await auth(provider, { serverUrl, scope, resourceMetadataUrl }).catch(plainly);
    if (started === "REDIRECT") {
      await shown;
      const { code, state } = await callback.result(options.waitMs ?? LOGIN_WAIT_MS, options.signal);
      if (state !== provider.state()) throw new Error("the redirect came back with another state (not from this login)");
      const finished = await auth(provider, { serverUrl, scope, resourceMetadataUrl, authorizationCode: code }).catch(plainly);
      if (finished !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens");
    }
    return await provider.path();
  } finally {
    await loopback.close().catch(() => {});
  }
}

/** The SDK's error, said plainly (no schema or parser dump). */
function plainly(error: unknown): never {
  throw new Error(oauthFailureText(error), { cause: error });
}

/** The loopback port of a stored redirect URL, to listen on it again. */
function registeredPort(redirectUrl: string | undefined): number | undefined {
  if (!redirectUrl) return undefined;
  try {
    const url = new URL(redirectUrl);
    return url.hostname === "127.0.0.1" && url.pathname === CALLBACK_PATH && url.port !== "" ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

interface Callback {
  handler(request: Request): Response;
  result(timeoutMs: number, signal?: AbortSignal): Promise<{ code: string; state: string | null }>;
}

/** The redirect from the authorization server: a code, or an error it reports. */
function waitForCallback(doneText: string): Callback {
  let settle!: (outcome: { code: string; state: string | null } | Error) => void;
  const outcome = new Promise<{ code: string; state: string | null } | Error>((resolve) => (settle = resolve));
  return {
    handler(request) {
      const url = new URL(request.url);
      if (url.pathname !== CALLBACK_PATH) return new Response("Not found", { status: 404 });
      const code = url.searchParams.get("code");
      const error = url.searchParams.get("error");
      if (code) {
        settle({ code, state: url.searchParams.get("state") });
        return page(doneText);
      }
      const detail = url.searchParams.get("error_description") ?? error ?? "no code in the redirect";
      settle(new Error(`the authorization server refused: ${detail}`));
      return page(`Login failed: ${detail}`, 400);
    },
    async result(timeoutMs, signal) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      const late = new Promise<Error>((resolve) => {
        timer = setTimeout(() => resolve(new Error(`no redirect came back within ${timeoutMs / 1000} s`)), timeoutMs);
        onAbort = () => resolve(new Error(String(signal?.reason ?? "the login was abandoned")));
        if (signal?.aborted) onAbort();
        else signal?.addEventListener("abort", onAbort, { once: true });
      });
      const value = await Promise.race([outcome, late]);
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      if (value instanceof Error) throw value;
      return value;
    },
  };
}

function page(text: string, status = 200): Response {
  const escaped = text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!);
  return new Response(`<!doctype html><title>${NAME}</title><p>${escaped}</p>`, {
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}
