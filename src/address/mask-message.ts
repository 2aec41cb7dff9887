/**
 * A server definition's secrets (address/redact.ts) masked in a message that server sent, before
 * anything reads it: tool results, errors, log messages, instructions, prompts, resources,
 * listings and questions alike (issue 37 §7). Called once per message where every message of a
 * server comes in (downstream/era/era-link.ts). A secret is found as written, or as JSON writes it
 * inside a string; a server that encodes it otherwise (base64, \u escapes) is not second-guessed.
 * With no secret configured this is a test of a flag.
 */
import { lazyJsonObject, rawJsonOf } from "../transport/raw-json.ts";
import { sliceOf } from "../transport/json-scan.ts";
import { MASK, type Redactor } from "./redact.ts";

/** Masks in place: a raw (unparsed) value is given new bytes only where a secret was found, a parsed one its strings and keys. */
export function maskMessage(message: object, redactor: Redactor): void {
  if (redactor.empty) return;
  maskInPlace(message, redactor);
}

function maskInPlace(value: object, redactor: Redactor): void {
  if (Array.isArray(value)) {
    for (let at = 0; at < value.length; at++) value[at] = maskValue(value[at], redactor);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const masked = maskValue(item, redactor);
    const name = redactor.redact(key);
    if (name !== key) delete record[key];
    // Defined, not assigned: a key "__proto__" stays a key.
    if (name !== key || masked !== item) Object.defineProperty(record, name, { value: masked, writable: true, enumerable: true, configurable: true });
  }
}

function maskValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === "string") return redactor.redact(value);
  if (typeof value !== "object" || value === null) return value;
  const raw = rawJsonOf(value);
  if (raw) return maskedRaw(raw, redactor) ?? value;
  maskInPlace(value, redactor);
  return value;
}

/**
 * A raw value with new bytes when a secret is in them; undefined (keep it as it is) when none is.
 * Decoded and searched as text: the runtime's string search takes about 0.1 ms on 1 MiB of any
 * text, where a search of the bytes in JavaScript took 3 ms on prose full of the secret's first
 * letter (scripts/mask-cost.ts). Where a secret is found in ASCII text (one byte a character), the
 * new value is views of the old bytes around masks: a fresh 1 MiB buffer per result cost Deno
 * several milliseconds more downstream.
 */
function maskedRaw(pieces: Uint8Array[], redactor: Redactor): object | undefined {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (const piece of pieces) {
    text += decoder.decode(piece, { stream: true });
    bytes += piece.length;
  }
  text += decoder.decode();
  const masked = redactor.redactJson(text);
  if (masked === text) return undefined;
  // Fewer characters than bytes: some took more than one, and offsets differ. Rare enough to encode anew.
  if (text.length !== bytes) return lazyJsonObject([new TextEncoder().encode(masked)]);
  const spans = foundIn(text, redactor.inJson);
  if (!spans) return lazyJsonObject([new TextEncoder().encode(masked)]);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const [start, end] of spans) {
    out.push(...sliceOf(pieces, at, start), MASK_BYTES);
    at = end;
  }
  out.push(...sliceOf(pieces, at, bytes));
  return lazyJsonObject(out);
}

const MASK_BYTES = new TextEncoder().encode(MASK);

/** Spans looked at one by one at most: past it, a text full of secrets is encoded anew. */
const MAX_SPANS = 256;

/**
 * Where the secrets stand in `text`, in order and without overlaps: the secrets come longest first,
 * so a longer one wins its whole span, as in Redactor.redactJson. Undefined past MAX_SPANS.
 */
function foundIn(text: string, secrets: readonly string[]): [number, number][] | undefined {
  const spans: [number, number][] = [];
  for (const secret of secrets) {
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + secret.length)) {
      const end = at + secret.length;
      if (spans.some(([from, to]) => at < to && end > from)) continue;
      if (spans.push([at, end]) > MAX_SPANS) return undefined;
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}
