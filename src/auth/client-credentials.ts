/**
 * OAuth for a server used with no one present (CI, a shared service account): the client
 * credentials grant, with a client secret or a private key that signs a JWT (RFC 7523). The SDK's
 * auth() fetches a token when the server answers 401 and again when it expires; tokens live in
 * memory only, since the credentials get a new one at any time and no login is kept.
 */
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthTokens,
} from "../protocol/sdk-remote.ts";
import type { OAuthSettings } from "../config/index.ts";
import { NAME } from "../protocol/version.ts";
import { messageOf } from "../protocol/errors.ts";
import type { RecheckedLogin } from "./token-recheck.ts";

type AddClientAuthentication = NonNullable<OAuthClientProvider["addClientAuthentication"]>;

export interface ClientCredentialsOptions {
  oauth: OAuthSettings & { clientId: string };
  /** The private key file, resolved against the configuration's folder. */
  keyFile?: string;
  readTextFile(path: string): Promise<string>;
}

export class ClientCredentialsLogin implements OAuthClientProvider, RecheckedLogin {
  readonly #options: ClientCredentialsOptions;
  #client: OAuthClientInformationMixed;
  #tokens?: OAuthTokens;
  #sign?: Promise<AddClientAuthentication>;

  constructor(options: ClientCredentialsOptions) {
    this.#options = options;
    const { clientId, clientSecret } = options.oauth;
    this.#client = { client_id: clientId, ...(clientSecret !== undefined && { client_secret: clientSecret }) };
    // Only a key signs: without one the SDK authenticates with the secret as the server prefers.
    if (options.oauth.privateKeyJwt) this.addClientAuthentication = (...args) => this.#signer().then((sign) => sign(...args));
  }

  addClientAuthentication?: AddClientAuthentication;

  /** No redirect: the SDK takes this as the non-interactive flow and asks prepareTokenRequest. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.#options.oauth.scopes;
    return {
      client_name: NAME,
      redirect_uris: [],
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: this.#options.oauth.privateKeyJwt ? "private_key_jwt" : "client_secret_basic",
      ...(scopes?.length && { scope: scopes.join(" ") }),
    };
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) params.set("scope", scope);
    return params;
  }

  clientInformation(): OAuthClientInformationMixed {
    return this.#client;
  }

  /** The SDK binds the client to the authorization server it first used (the issuer). */
  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(): void {
    throw new Error(`the authorization server asked for a login in a browser, which grant "client_credentials" never does`);
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error(`grant "client_credentials" has no PKCE code verifier`);
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.#tokens = undefined;
  }

  /** Nothing is stored elsewhere: the token held is the one there is. */
  reread(): Promise<string | undefined> {
    return Promise.resolve(this.#tokens?.access_token);
  }

  stepUpRequired(scope: string | undefined): Promise<Error> {
    return Promise.resolve(new Error(`the server needs the scope "${scope ?? ""}": add it to the server's oauth.scopes`));
  }

  /** The key is read once, when the first token is asked for: a missing file fails that request with its name. */
  #signer(): Promise<AddClientAuthentication> {
    this.#sign ??= (async () => {
      const { keyFile, readTextFile, oauth } = this.#options;
      const { createPrivateKeyJwtAuth } = await import("../protocol/sdk-remote.ts");
      let privateKey: string;
      try {
        privateKey = await readTextFile(keyFile!);
      } catch (error) {
        throw new Error(`cannot read the private key '${keyFile}' (oauth.privateKeyJwt.keyFile): ${messageOf(error)}`);
      }
      return createPrivateKeyJwtAuth({ issuer: oauth.clientId, subject: oauth.clientId, privateKey, alg: oauth.privateKeyJwt!.alg });
    })();
    // A failed read is tried again by the next token request.
    this.#sign.catch(() => (this.#sign = undefined));
    return this.#sign;
  }
}
