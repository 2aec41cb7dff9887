/**
 * What a server's start needs of its member besides the configuration: a login given in the client
 * (chat-login.ts) when a remote server refuses without one, and the secrets a member provided
 * themselves (auth/connect-flow.ts) for a `${client:NAME}` the file leaves out. Both are asked
 * for at each start, never kept by the server: a login renewed or a secret forgotten counts at once.
 */
import { isRemote, type RemoteServerConfig, type ServerConfig } from "../config/index.ts";
import { type LoginNeeded, loginNeededIn } from "../auth/chat-login.ts";
import type { ServerTarget } from "../downstream/links/link.ts";
import type { ServerSessionHost } from "../downstream/session-options.ts";

/** True when the server needed a login and the user gave it in the client (see chat-login.ts). */
export async function loggedIn(error: unknown, target: ServerTarget, host: ServerSessionHost, closed: () => boolean): Promise<boolean> {
  const needed = loginNeededIn(error);
  const { config } = target;
  const login = host.chatLogin;
  // A team member logs in as themselves, on a page a call asks them to open (tools/pipeline/connect.ts).
  if (target.client !== undefined && host.vault) return false;
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

/** What a member's server lacks to start: a secret they may provide, or a login of their own (and the scope it needs). */
export interface Lacking {
  secret?: string;
  /** The server, whose login the member begins (a remote one). */
  login?: LoginNeeded & { config: RemoteServerConfig };
}

/**
 * A member's server's credentials as the member gives them (serving a team over HTTP): made lacking
 * a secret, each start reads what they provided since; a start that needed a login of their own
 * says so until a later start holds one.
 */
export class MemberCredentials {
  #loginNeeded?: LoginNeeded;

  constructor(
    private readonly made: ServerTarget,
    private readonly provide: (() => Promise<ServerConfig>) | undefined,
    private readonly ownLogins: boolean,
  ) {}

  /** The target to start now. */
  target(): Promise<ServerTarget> {
    return withProvided(this.made, this.provide);
  }

  /** A start ended (with `error`, or none). */
  started(error: unknown): void {
    this.#loginNeeded = error && this.made.client !== undefined && this.ownLogins ? loginNeededIn(error) : undefined;
  }

  /** The secret the member still lacks (none once provided), or the login their last start needed. */
  async lacking(config: ServerConfig): Promise<Lacking | undefined> {
    if (this.#loginNeeded && isRemote(config)) return { login: { ...this.#loginNeeded, config } };
    if (this.made.config.missingSecret === undefined) return undefined;
    return { secret: (await this.target()).config.missingSecret };
  }
}
