/**
 * `mcp-workbench auth TOOLBOX SERVER`: the OAuth login of one remote server, in a terminal. It
 * first asks the server as any client would and reads its refusal (metadata URL, scope), listens
 * on a loopback port for the redirect, prints the authorization URL and opens it in the browser,
 * then stores the client registration and tokens where the workbench finds them.
 */
import { auth } from "../sdk-remote.ts";
import type { Platform } from "../platform/types.ts";
import { isRemote } from "../config/index.ts";
import { clientCredentialsOf } from "../remote/remote-auth.ts";
import { checkClientCredentials } from "./auth-client-credentials.ts";
import { messageOf } from "../errors.ts";
import { NAME } from "../version.ts";
import type { SubcommandArgs } from "./args.ts";
import { EXIT_USAGE, loadForCommand, sayError } from "./common.ts";
import { AuthStore, authDir } from "../remote/auth-store.ts";
import { serverUrlOf } from "../remote/server-url.ts";
import { joinScopes, WorkbenchOAuthProvider } from "../remote/oauth-provider.ts";
import { challengeOf } from "../remote/challenge.ts";
import { Redactor } from "../remote/redact.ts";
import { toolboxNotFound } from "../tools/lookup.ts";

/** How long the login waits for the browser to come back. */
const LOGIN_WAIT_MS = 5 * 60_000;
const CALLBACK_PATH = "/callback";

export async function runAuth(platform: Platform, args: SubcommandArgs): Promise<number> {
  const say = (text: string) => sayError(platform, text);
  const loaded = await loadForCommand(platform, args.configPath);
  if (!loaded) return EXIT_USAGE;
  const { config } = loaded;
  const [toolbox, server] = args.positionals;
  const browser = args.options["--no-browser"] !== true;
  const toolboxConfig = Object.hasOwn(config.toolboxes, toolbox) ? config.toolboxes[toolbox] : undefined;
  if (!toolboxConfig) {
    say(toolboxNotFound(config, toolbox));
    return EXIT_USAGE;
  }
  const serverConfig = Object.hasOwn(toolboxConfig.mcpServers, server) ? toolboxConfig.mcpServers[server] : undefined;
  if (!serverConfig) {
    say(`Server '${server}' not found in toolbox '${toolbox}'`);
    return EXIT_USAGE;
  }
  if (!isRemote(serverConfig)) {
    say(`Server '${server}' in toolbox '${toolbox}' is started as a command: only servers with a url log in`);
    return EXIT_USAGE;
  }
  const redactor = Redactor.forServer(serverConfig);
  const machine = clientCredentialsOf(serverConfig, loaded.path, platform.readTextFile);
  if (machine) return await checkClientCredentials(platform, machine, { toolbox, server, serverConfig, redactor });
  const callback = waitForCallback();
  const store = new AuthStore(authDir(platform.env, platform.os), platform);
  const serverUrl = serverUrlOf(serverConfig);
  // The redirect URL the stored client was registered with, if its port is free: no new registration.
  const loopback = await platform.serve(callback.handler, registeredPort((await store.load(serverUrl)).redirectUrl));
  try {
    // What the server's refusal names: where its metadata is, and the scope it wants.
    const challenge = await challengeOf(serverConfig);
    const given = typeof args.options["--scope"] === "string" ? args.options["--scope"] : undefined;
    const scope = joinScopes(given, challenge.scope, serverConfig.oauth?.scopes?.join(" "));
    const { resourceMetadataUrl } = challenge;
    const provider = new WorkbenchOAuthProvider({
      store,
      serverUrl,
      oauth: serverConfig.oauth,
      mode: {
        kind: "login",
        redirectUrl: `${loopback.url}${CALLBACK_PATH}`,
        scope,
        onAuthorizationUrl: (url) => {
          platform.writeStderr(`Open this URL to log in to server '${server}' (toolbox '${toolbox}'):\n${url.href}\n`);
          if (browser) platform.openBrowser(url.href);
        },
      },
    });
    const started = await auth(provider, { serverUrl, scope, resourceMetadataUrl });
    if (started === "REDIRECT") {
      const { code, state } = await callback.result(LOGIN_WAIT_MS);
      if (state !== provider.state()) throw new Error("the redirect came back with another state (not from this login)");
      const finished = await auth(provider, { serverUrl, scope, resourceMetadataUrl, authorizationCode: code });
      if (finished !== "AUTHORIZED") throw new Error("the authorization server did not issue tokens");
    }
    platform.writeStderr(`Logged in to server '${server}' in toolbox '${toolbox}'; saved in ${await provider.path()}\n`);
    return 0;
  } catch (error) {
    say(`Login to server '${server}' in toolbox '${toolbox}' failed: ${redactor.redact(messageOf(error))}`);
    return 1;
  } finally {
    await loopback.close().catch(() => {});
  }
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
  result(timeoutMs: number): Promise<{ code: string; state: string | null }>;
}

/** The redirect from the authorization server: a code, or an error it reports. */
function waitForCallback(): Callback {
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
        return page("Logged in. You can close this tab and go back to the terminal.");
      }
      const detail = url.searchParams.get("error_description") ?? error ?? "no code in the redirect";
      settle(new Error(`the authorization server refused: ${detail}`));
      return page(`Login failed: ${detail}`, 400);
    },
    async result(timeoutMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<Error>((resolve) => {
        timer = setTimeout(() => resolve(new Error(`no redirect came back within ${timeoutMs / 1000} s`)), timeoutMs);
      });
      const value = await Promise.race([outcome, late]);
      clearTimeout(timer);
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
