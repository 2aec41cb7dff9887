/**
 * The token each member signed in with last (a JWT of `serve.oauth`), for token exchange
 * (token-exchange.ts): the authenticator remembers it at each request, the exchange reads it. In
 * memory only, one per member, until it expires: a request of the member's always brings one.
 */

/** At most this many members are remembered; past it, expired ones go, then the oldest. */
const MAX_MEMBERS = 10_000;

export class SubjectTokens {
  readonly #tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** `member` came with `token`, valid until `expiresAt` (ms since the epoch). */
  remember(member: string, token: string, expiresAt: number): void {
    this.#tokens.delete(member);
    if (this.#tokens.size >= MAX_MEMBERS) {
      const now = this.now();
      for (const [name, { expiresAt: until }] of this.#tokens) if (until <= now) this.#tokens.delete(name);
      if (this.#tokens.size >= MAX_MEMBERS) this.#tokens.delete(this.#tokens.keys().next().value!);
    }
    this.#tokens.set(member, { token, expiresAt });
  }

  /** Who is who changed (the configuration's clients): each member's next request brings their token again. */
  clear(): void {
    this.#tokens.clear();
  }

  /** The member's token while it is valid; undefined for one who came with none (or whose token expired). */
  of(member: string): string | undefined {
    const held = this.#tokens.get(member);
    return held && held.expiresAt > this.now() ? held.token : undefined;
  }
}
