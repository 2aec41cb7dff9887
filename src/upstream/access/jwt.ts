/**
 * `serve.oauth`: the workbench as an OAuth 2.1 resource server. A JWT is checked with `jose`
 * against the issuer's JWKS (fetched once and cached; a key id it does not know fetches it again,
 * which is how a rotation is followed): signature, `iss`, `exp` (required), `nbf`, and an `aud`
 * from the list. jose is imported on the first token, so serving without OAuth never loads it.
 */
import type { ServeOAuthConfig } from "../../config/index.ts";

/** Clocks drift: a token is taken this long past its `exp` or before its `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export type JwtOutcome =
  | { ok: true; subject: string; scopes: string[]; expiresAt: number }
  /** The token is not valid (401), or the keys could not be had (503: the token may be good). */
  | { ok: false; reason: string; keysUnavailable?: boolean };

export interface JwtOptions {
  /** How soon an unknown key id may fetch the JWKS again; jose's 30 s when not said (tests shorten it). */
  jwksCooldownMs?: number;
}

type Jose = typeof import("jose");

/** Three base64url parts: worth handing to the verifier. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

export class JwtVerifier {
  readonly #oauth: ServeOAuthConfig;
  readonly #options: JwtOptions;
  #ready?: Promise<{ jose: Jose; keys: ReturnType<Jose["createRemoteJWKSet"]> }>;

  constructor(oauth: ServeOAuthConfig, options: JwtOptions = {}) {
    this.#oauth = oauth;
    this.#options = options;
  }

  async verify(token: string): Promise<JwtOutcome> {
    const { jose, keys } = await (this.#ready ??= import("jose").then((jose) => ({
      jose,
      keys: jose.createRemoteJWKSet(new URL(this.#oauth.jwksUri), { cooldownDuration: this.#options.jwksCooldownMs }),
    })));
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer: this.#oauth.issuer,
        audience: this.#oauth.audience,
        requiredClaims: ["exp"],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      if (typeof payload.sub !== "string" || payload.sub === "") return { ok: false, reason: "The token has no subject ('sub')" };
      // `exp` is required above: a token kept for token exchange is given up when it expires.
      return { ok: true, subject: payload.sub, scopes: scopesOf(payload), expiresAt: payload.exp! * 1000 };
    } catch (error) {
      return this.#failure(jose, error);
    }
  }

  #failure(jose: Jose, error: unknown): JwtOutcome {
    const { errors } = jose;
    // The keys could not be fetched or read (a refused connection is fetch's TypeError): the token may be good.
    if (!(error instanceof errors.JOSEError) || ["ERR_JOSE_GENERIC", "ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID"].includes(error.code)) {
      return { ok: false, keysUnavailable: true, reason: `Cannot fetch the issuer's keys from '${this.#oauth.jwksUri}'` };
    }
    if (error instanceof errors.JWTExpired) return { ok: false, reason: "The token has expired" };
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.claim === "aud") return { ok: false, reason: "The token's audience is not one of serve.oauth.audience" };
      if (error.claim === "iss") return { ok: false, reason: `The token's issuer is not '${this.#oauth.issuer}'` };
      if (error.claim === "nbf") return { ok: false, reason: "The token is not valid yet: its 'nbf' is in the future" };
      if (error.claim === "exp") return { ok: false, reason: "The token has no expiry ('exp')" };
      return { ok: false, reason: `The token's claim '${error.claim}' is not valid: ${error.reason}` };
    }
    if (error instanceof errors.JWKSNoMatchingKey) return { ok: false, reason: "No key of the issuer's JWKS matches the token" };
    if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: "The token's signature does not verify" };
    return { ok: false, reason: "The token is not a valid JWT" };
  }
}

/** `scope` as a space-separated string (RFC 8693), or `scp` as an array or a string (Microsoft, Okta). */
function scopesOf(payload: Record<string, unknown>): string[] {
  const { scope, scp } = payload;
  const words = (value: unknown): string[] =>
    typeof value === "string"
      ? value.split(" ").filter(Boolean)
      : Array.isArray(value)
      ? value.filter((item) => typeof item === "string")
      : [];
  return [...words(scope), ...words(scp)];
}
