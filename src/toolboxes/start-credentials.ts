/**
 * What a server's start needs of its member besides the configuration: a login given in the client
 * (chat-login.ts) when a remote server refuses without one, and the secrets a member provided
 * themselves (auth/connect-flow.ts) for a `${client:NAME}` the file leaves out. Both are asked
 * for at each start, never kept by the server: a login renewed or a secret forgotten counts at once.
 */
import { isRemote, type ServerConfig } from "../config/index.ts";
import { loginNeededIn } from "../auth/chat-login.ts";
import type { ServerTarget } from "../downstream/links/link.ts";
import type { ServerSessionHost } from "../downstream/session-options.ts";

/** True when the server needed a login and the user gave it in the client (see chat-login.ts). */
export async function loggedIn(error: unknown, target: ServerTarget, host: ServerSessionHost, closed: () => boolean): Promise<boolean> {
  const needed = loginNeededIn(error);
  const { config } = target;
  const login = host.chatLogin;
  if (!needed || !login || !isRemote(config) || closed()) return false;
  return await login.logIn({ ...target, config }, needed);
}

/**
 * The target with what its member provided since, for a server made lacking a secret; else as made.
 * A store that cannot be read leaves it lacking (the start fails saying which secret).
 */
export async function withProvided(made: ServerTarget, provide: (() => Promise<ServerConfig>) | undefined): Promise<ServerTarget> {
  if (made.config.missingSecret === undefined || !provide) return made;
  return { ...made, config: await provide().catch(() => made.config) };
}

/** The secrets members provided themselves (auth/member-vault.ts), by member. */
export interface ProvidedSecrets {
  values(client: string): Promise<Record<string, string>>;
}
