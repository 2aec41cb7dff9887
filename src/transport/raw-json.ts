/**
 * A large JSON value passed on as the bytes it came in. A tool's result read from a server is sent
 * to the client unchanged, so it need not be decoded, parsed, stringified and encoded on the way:
 * it stays the server's bytes, and its response frame is our few bytes of envelope around them.
 * Whatever reads or changes the value gets it parsed (then it is an ordinary object, and its bytes
 * are let go): the CLI, which prints it, or the SDK, which checks it.
 */
import { concatBytes } from "./line-splitter.ts";
import { type Member, sliceOf } from "./json-scan.ts";

/** What each lazy object stands for: its bytes until something looks inside, then the parsed value. */
interface Lazy {
  pieces?: Uint8Array[];
  parsed?: object;
}

const lazies = new WeakMap<object, Lazy>();

/**
 * An object that stands for the JSON object in `pieces` (already checked by scanJson), parsed on
 * the first look inside it. One look is free: a Promise resolved with it asks for `then`, and JSON
 * has no functions, so no JSON value is a thenable.
 */
export function lazyJsonObject(pieces: Uint8Array[]): Record<string, unknown> {
  const lazy: Lazy = { pieces };
  const value = () => parsedValue(lazy);
  const proxy = new Proxy({}, {
    get: (_, key) => key === "then" && !lazy.parsed ? undefined : Reflect.get(value(), key),
    has: (_, key) => Reflect.has(value(), key),
    ownKeys: () => Reflect.ownKeys(value()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(value(), key);
      // A proxy may not report a property as fixed that its (empty) target does not have.
      return descriptor && { ...descriptor, configurable: true };
    },
    set: (_, key, item) => Reflect.set(value(), key, item),
    deleteProperty: (_, key) => Reflect.deleteProperty(value(), key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(value(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(value()),
  });
  lazies.set(proxy, lazy);
  return proxy;
}

function parsedValue(lazy: Lazy): object {
  if (!lazy.parsed) {
    const pieces = lazy.pieces!;
    lazy.pieces = undefined;
    lazy.parsed = JSON.parse(new TextDecoder().decode(pieces.length === 1 ? pieces[0] : concatBytes(pieces))) as object;
  }
  return lazy.parsed;
}

/** The bytes of a value made by lazyJsonObject and never looked into; undefined for anything else. */
export function rawJsonOf(value: unknown): Uint8Array[] | undefined {
  return typeof value === "object" && value !== null ? lazies.get(value)?.pieces : undefined;
}

/** The value itself: an ordinary object for one made by lazyJsonObject, else `value` unchanged. */
export function plainJson<T>(value: T): T {
  const lazy = typeof value === "object" && value !== null ? lazies.get(value) : undefined;
  return lazy ? parsedValue(lazy) as T : value;
}

/**
 * A message to the fast lane's `claim`, else to the SDK's `onmessage`: a raw result is passed on raw
 * only to a lane; the SDK gets it parsed.
 */
export function handOn<M extends object>(message: M, to: { claim?: (message: M) => boolean; onmessage?: (message: M) => void }): void {
  if (to.claim?.(message)) return;
  const raw = (message as { result?: unknown }).result;
  const result = plainJson(raw);
  to.onmessage?.(result === raw ? message : { ...message, result } as M);
}

/** Members of a response that may be read from its bytes: small ones are parsed, the result is kept raw. */
const RESPONSE_KEYS = ["jsonrpc", "id", "result"];
const LONGEST_SMALL_MEMBER = 1024;

/**
 * The response in `pieces` with its result left raw, when it is exactly `{"jsonrpc", "id",
 * "result": {...}}` (each once, any order); undefined for any other message, which is then
 * parsed the ordinary way.
 */
export function rawResponse(pieces: Uint8Array[], members: Member[]): Record<string, unknown> | undefined {
  const keys = members.map((member) => member.key);
  if (keys.length !== RESPONSE_KEYS.length || !RESPONSE_KEYS.every((key) => keys.includes(key))) return undefined;
  const message: Record<string, unknown> = {};
  for (const member of members) {
    const bytes = sliceOf(pieces, member.start, member.end);
    if (member.key === "result") {
      if (bytes[0][0] !== 0x7b) return undefined;
      message.result = lazyJsonObject(bytes);
    } else {
      if (member.end - member.start > LONGEST_SMALL_MEMBER) return undefined;
      message[member.key!] = JSON.parse(new TextDecoder().decode(concatBytes(bytes)));
    }
  }
  return message;
}

/**
 * The frame of a response `{"jsonrpc":"2.0","id":...,"result":...}` whose result is still raw, as
 * pieces to write one after the other: the envelope, the server's bytes, the end of the line.
 */
export function rawResponseFrame(message: object, encoder: TextEncoder): Uint8Array[] | undefined {
  // Every message sent asks: one whose result is not raw costs one look-up, not a copy (issue 42).
  const raw = rawJsonOf((message as { result?: unknown }).result);
  if (!raw) return undefined;
  const { jsonrpc, id, result: _, ...rest } = message as { jsonrpc?: unknown; id?: unknown; result?: unknown };
  if (jsonrpc !== "2.0" || Object.keys(rest).length > 0) return undefined;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const head = encoder.encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
  return [head, ...raw, encoder.encode("}\n")];
}

/**
 * A raw object with `member` (`"key":value`) put first, still raw: a large result gains a member
 * without being parsed. Undefined when `value` is not raw, or is `{}`; then add the member the
 * ordinary way.
 */
export function rawWithLeadingMember(value: unknown, member: string): Record<string, unknown> | undefined {
  const pieces = rawJsonOf(value);
  if (!pieces || pieces[0][0] !== 0x7b) return undefined;
  const first = pieces[0].subarray(1);
  const next = first.find((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09);
  if (next === undefined || next === 0x7d) return undefined;
  return lazyJsonObject([new TextEncoder().encode(`{${member},`), first, ...pieces.slice(1)]);
}

/**
 * A result as a span may look at it (issue 50): one still raw whose bytes have no `"isError"`
 * member is no tool error, and is not parsed to be told so (undefined); any other, itself.
 */
export function unreadResult(result: unknown): unknown {
  return rawIncludes(result, '"isError"') === false ? undefined : result;
}

/**
 * Whether the bytes of a raw value hold `word` (a word split across two pieces counts); undefined
 * for a value that is not raw, which is then looked into the ordinary way.
 */
export function rawIncludes(value: unknown, word: string): boolean | undefined {
  const pieces = rawJsonOf(value);
  if (!pieces) return undefined;
  const wanted = wordBytes(word);
  const overlap = wanted.bytes.length - 1;
  return pieces.some((piece, at) => {
    if (contains(piece, wanted)) return true;
    const next = pieces[at + 1];
    if (!next) return false;
    const seam = new Uint8Array([...piece.subarray(-overlap), ...next.subarray(0, overlap)]);
    return contains(seam, wanted);
  });
}

/** A word looked for, encoded once, with the place of its rarest byte (see anchorOf). */
interface Word {
  bytes: Uint8Array;
  anchor: number;
}

/** The few words looked for, encoded once: a traced call looks for one in every result. */
const WORDS = new Map<string, Word>();
function wordBytes(word: string): Word {
  let found = WORDS.get(word);
  if (!found) {
    const bytes = new TextEncoder().encode(word);
    WORDS.set(word, found = { bytes, anchor: anchorOf(bytes) });
  }
  return found;
}

/**
 * Where in `word` the search looks first: a byte rare in JSON (a capital, then `_`), not its opening
 * quote. A JSON text has a quote every few bytes: stopping at each cost a traced echo about 0.1 µs
 * a look, and a call looks twice (issue 50).
 */
function anchorOf(word: Uint8Array): number {
  const capital = word.findIndex((byte) => byte >= 0x41 && byte <= 0x5a);
  if (capital >= 0) return capital;
  const underscore = word.indexOf(0x5f);
  if (underscore >= 0) return underscore;
  return word.length > 1 ? 1 : 0;
}

function contains(bytes: Uint8Array, word: Word): boolean {
  const { bytes: wanted, anchor } = word;
  const key = wanted[anchor];
  // The last place the anchor byte can be with the rest of the word still in `bytes`.
  const last = bytes.length - wanted.length + anchor;
  for (let at = bytes.indexOf(key, anchor); at >= 0 && at <= last; at = bytes.indexOf(key, at + 1)) {
    const from = at - anchor;
    let i = 0;
    while (i < wanted.length && bytes[from + i] === wanted[i]) i++;
    if (i === wanted.length) return true;
  }
  return false;
}
