/**
 * A login inside the chat: when a remote server needs one and the MCP client in front declared
 * URL-mode elicitation, the workbench asks the client to open the authorization URL (an
 * elicitation/create with mode "url"), waits for the redirect on its own loopback port, stores the
 * tokens and says the elicitation is complete; the open or call that needed the login goes on.
 * A client without URL mode (or a user who declines) leaves today's answer: the error that names
 * the `mcp-workbench auth` command to run in a terminal.
 */
import type { LoginSupport } from "../platform/types.ts";
import type { RemoteServerConfig } from "../config/index.ts";
import type { Upstream } from "../protocol/upstream.ts";
import { messageOf } from "../protocol/errors.ts";
import type { AuthStore } from "./auth-store.ts";
import { serverUrlOf } from "../address/server-url.ts";
import { Redactor } from "../address/redact.ts";

/** How long the user has to finish a login started in the chat. */
const CHAT_LOGIN_WAIT_MS = 5 * 60_000;

export interface LoginTarget {
  toolbox: string;
  server: string;
  config: RemoteServerConfig;
}

export interface ChatLogin {
  /** True once the server has tokens from a login the user finished in the client. */
  logIn(target: LoginTarget, reason: LoginNeeded): Promise<boolean>;
}

/** What a refused request said: a login is needed, maybe with more scopes. */
export interface LoginNeeded {
  scope?: string;
}

/** The LoginRequired error somewhere in an error's cause chain, if any. */
export function loginNeededIn(error: unknown): LoginNeeded | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; current = current.cause, depth++) {
    if (current.name === "LoginRequired") return current as LoginNeeded;
  }
  return undefined;
}

export function chatLogin(upstream: Upstream, store: AuthStore, serve: LoginSupport["serve"], log: (text: string) => void): ChatLogin {
  /** One login per server URL at a time: toolboxes and calls that need it wait for the same one. */
  const pending = new Map<string, Promise<boolean>>();
  return {
    logIn(target, reason) {
      if (upstream.capabilities?.elicitation?.url === undefined) return Promise.resolve(false);
      const key = serverUrlOf(target.config);
      let login = pending.get(key);
      if (!login) {
        login = run(target, reason).finally(() => pending.delete(key));
        pending.set(key, login);
      }
      return login;
    },
  };

  async function run({ toolbox, server, config }: LoginTarget, reason: LoginNeeded): Promise<boolean> {
    const elicitationId = crypto.randomUUID();
    const prefix = `[${toolbox}/${server}]`;
    try {
      // The SDK's OAuth client loads with the first login, not at start-up.
      const { logIn } = await import("./login.ts");
      await logIn({
        serve,
        store,
        config,
        scope: reason.scope,
        waitMs: CHAT_LOGIN_WAIT_MS,
        doneText: "Logged in. You can close this tab and go back to your MCP client.",
        onAuthorizationUrl: async (url) => {
          log(`${prefix} asking the client to open the login page`);
          const answer = await upstream.request("elicitation/create", {
            mode: "url",
            message: `Log in to server '${server}' (toolbox '${toolbox}') so that MCP Workbench can use it`,
            url: url.href,
            elicitationId,
          }, { timeout: CHAT_LOGIN_WAIT_MS });
          if (answer.action !== "accept") throw new Error(`the user did not open the login page (${String(answer.action)})`);
        },
      });
      await upstream.notify("notifications/elicitation/complete", { elicitationId }).catch(() => {});
      log(`${prefix} logged in from the client`);
      return true;
    } catch (error) {
      log(`${prefix} login in the client failed: ${Redactor.forServer(config).redact(messageOf(error))}`);
      return false;
    }
  }
}
