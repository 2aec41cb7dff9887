/**
 * Our side of the MCP authorization flow; the SDK's auth() does the protocol. Two modes:
 * - "login" (the `auth` subcommand): registers a client if needed, sends the user to the
 *   authorization URL and stores what comes back;
 * - "serve" (the workbench serving a client): uses stored tokens and refreshes them, but never
 *   starts a login: it fails with the exact command that does.
 */
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "../protocol/sdk-remote.ts";
import type { OAuthSettings } from "../config/index.ts";
import type { AuthRecord, LoginRecords } from "./auth-store.ts";
import { NAME } from "../protocol/version.ts";
import type { RecheckedLogin } from "./token-recheck.ts";

/** The server needs a login that only the user can give. */
export class LoginRequired extends Error {
  /** The scopes the login must ask for, when the server asked for more than the stored login has. */
  readonly scope?: string;

  /** `instead`: what to do when it is not a command (a team member logs in on a page, see member-logins.ts). */
  constructor(command: string, reason = "login required", scope?: string, instead?: string) {
    super(`${reason}: ${instead ?? `run "${command}"`}`);
    this.name = "LoginRequired";
    this.scope = scope;
  }
}

/** The words of one or more scope strings, each once, in the order first given. */
export function joinScopes(...scopes: (string | undefined)[]): string | undefined {
  const words = [...new Set(scopes.flatMap((scope) => scope?.split(/\s+/) ?? []).filter((word) => word !== ""))];
  return words.length === 0 ? undefined : words.join(" ");
}

/** A redirect URL for serve mode, where no redirect ever happens: the SDK needs one to know the flow is interactive. */
const NO_REDIRECT = "http://127.0.0.1/callback";

export interface ProviderOptions {
  store: LoginRecords;
  /** The server's URL as requests go to it (no user:password). */
  serverUrl: string;
  oauth?: OAuthSettings;
  mode: { kind: "serve"; loginCommand(scope?: string): string; instead?: string } | {
    kind: "login";
    redirectUrl: string;
    /** The scope this login asks for, kept with its tokens: a later step-up asks for it again. */
    scope?: string;
    onAuthorizationUrl(url: URL): void;
  };
}

export class WorkbenchOAuthProvider implements OAuthClientProvider, RecheckedLogin {
  readonly #options: ProviderOptions;
  #record?: Promise<AuthRecord>;
  #verifier?: string;
  #serverMetadata?: OAuthDiscoveryState["authorizationServerMetadata"];
  readonly #state = crypto.randomUUID();

  constructor(options: ProviderOptions) {
    this.#options = options;
  }

  get redirectUrl(): string {
    const { mode } = this.#options;
    return mode.kind === "login" ? mode.redirectUrl : NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.#options.oauth?.scopes;
    return {
      client_name: NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...(scopes?.length && { scope: scopes.join(" ") }),
    };
  }

  /** The authorization server takes our metadata document, or registers clients. */
  #registersItself(): boolean {
    const metadata = this.#serverMetadata;
    return metadata?.client_id_metadata_document_supported === true || metadata?.registration_endpoint !== undefined;
  }

  /** The state sent with the authorization request; the redirect must bring it back. */
  state(): string {
    return this.#state;
  }

  /** A Client ID Metadata Document: the SDK uses it as client_id where the authorization server takes one. */
  get clientMetadataUrl(): string | undefined {
    return this.#options.oauth?.clientMetadataUrl;
  }

  /** What discovery found, for the choice between a metadata document, a registration and a configured client. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#serverMetadata = state.authorizationServerMetadata;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { oauth, mode } = this.#options;
    const record = await this.#load();
    if (oauth?.clientId && oauth.clientMetadataUrl) {
      // The configured client is the last resort behind a metadata document and a registration.
      const other = record.client?.client_id !== oauth.clientId ? record.client : undefined;
      if (mode.kind === "serve" && other) return other;
      if (mode.kind === "login" && this.#registersItself()) return record.redirectUrl === mode.redirectUrl ? other : undefined;
    }
    if (oauth?.clientId) {
      // The stored copy carries the issuer the SDK stamped on it; the configured id decides.
      const stored = record.client?.client_id === oauth.clientId ? record.client : {};
      return { ...stored, client_id: oauth.clientId, ...(oauth.clientSecret && { client_secret: oauth.clientSecret }) };
    }
    // A registration is bound to its redirect URL: a login on another port registers again.
    if (mode.kind === "login") return record.redirectUrl === mode.redirectUrl ? record.client : undefined;
    if (!record.client) throw new LoginRequired(mode.loginCommand(), undefined, undefined, mode.instead);
    return record.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    const record = await this.#load();
    const { mode } = this.#options;
    // Serve mode only keeps what it has (the SDK stamps the issuer); registering is the login's job.
    if (mode.kind === "serve" && record.client?.client_id !== client.client_id) {
      throw new LoginRequired(mode.loginCommand(), undefined, undefined, mode.instead);
    }
    await this.#save({ ...record, client, redirectUrl: mode.kind === "login" ? mode.redirectUrl : record.redirectUrl });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    // A login starts afresh: old tokens would be refreshed instead of asking the user.
    if (this.#options.mode.kind === "login") return undefined;
    return (await this.#load()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const { mode } = this.#options;
    const record = await this.#load();
    // A refresh keeps the scope of the login; a login records what it asked for.
    const scope = mode.kind === "login" ? tokens.scope ?? mode.scope : record.scope;
    await this.#save({ ...record, tokens, ...(scope !== undefined ? { scope } : {}) });
  }

  redirectToAuthorization(url: URL): void {
    const { mode } = this.#options;
    if (mode.kind === "serve") throw new LoginRequired(mode.loginCommand(), undefined, undefined, mode.instead);
    mode.onAuthorizationUrl(url);
  }

  /** The login in the store now: another process (`auth` in a terminal) may have replaced it. */
  async reread(): Promise<string | undefined> {
    this.#record = undefined;
    return (await this.#load()).tokens?.access_token;
  }

  /** A login that asks for the scopes held now and those the server asked for. */
  async stepUpRequired(scope: string | undefined): Promise<Error> {
    const { mode } = this.#options;
    const record = await this.#load();
    const wanted = joinScopes(record.tokens?.scope ?? record.scope, scope);
    const command = mode.kind === "serve" ? mode.loginCommand(wanted) : "";
    const instead = mode.kind === "serve" ? mode.instead : undefined;
    return new LoginRequired(command, `the server needs the scope "${scope ?? ""}", which the stored login lacks`, wanted, instead);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no PKCE code verifier: the authorization was not started here");
    return this.#verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") this.#verifier = undefined;
    if (scope === "discovery") return;
    const record = await this.#load();
    if (scope === "all" || scope === "client") delete record.client;
    if (scope === "all" || scope === "tokens") delete record.tokens;
    await this.#save(record);
  }

  /** Where the record lives, for messages. */
  path(): Promise<string> {
    return this.#options.store.pathFor(this.#options.serverUrl);
  }

  #load(): Promise<AuthRecord> {
    this.#record ??= this.#options.store.load(this.#options.serverUrl);
    return this.#record;
  }

  async #save(record: AuthRecord): Promise<void> {
    this.#record = Promise.resolve(record);
    await this.#options.store.save(this.#options.serverUrl, record);
  }
}
