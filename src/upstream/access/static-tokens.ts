/**
 * `serve.clients`: static bearer tokens, each known by its SHA-256 (given in the file, or made
 * from the `${VAR}` token once). A token sent is hashed through WebCrypto and its digest compared
 * with every client's, each byte of each, whatever matched: the time taken says nothing about how
 * close a guess came, nor which client it was close to.
 */
import type { ServeClientConfig } from "../../config/index.ts";

/** Two digests equal, in time that depends on their length only. */
export type DigestCompare = (a: Uint8Array, b: Uint8Array) => boolean;

/** Every byte compared, the differences gathered without a branch. */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/** The client a token belongs to, by name, if any. */
export class StaticTokens {
  readonly #clients: readonly [string, ServeClientConfig][];
  readonly #compare: DigestCompare;
  #digests?: Promise<[string, Uint8Array][]>;

  constructor(clients: Record<string, ServeClientConfig>, compare: DigestCompare = sameDigest) {
    this.#clients = Object.entries(clients);
    this.#compare = compare;
  }

  get size(): number {
    return this.#clients.length;
  }

  /** Whether a client has this name, case aside: as file names, `CI` and `ci` are one on macOS and Windows. */
  has(name: string): boolean {
    return this.#clients.some(([client]) => client.toLowerCase() === name.toLowerCase());
  }

  async find(token: string): Promise<[string, ServeClientConfig] | undefined> {
    const digests = await (this.#digests ??= Promise.all(
      // A client whose token cannot be read is refused: no token finds it.
      this.#clients.filter(([, client]) => client.unreadable === undefined).map(async ([name, client]): Promise<[string, Uint8Array]> => [
        name,
        client.tokenSha256 !== undefined ? fromHex(client.tokenSha256) : await sha256(client.token ?? ""),
      ]),
    ));
    const given = await sha256(token);
    let found = -1;
    // No early exit: the first match is kept, and every other client is compared all the same.
    digests.forEach(([, digest], index) => {
      const same = this.#compare(given, digest);
      found = found === -1 && same ? index : found;
    });
    return found === -1 ? undefined : this.#clients.find(([name]) => name === digests[found][0]);
  }
}
