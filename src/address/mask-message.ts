/**
 * A server definition's secrets (address/redact.ts) masked in a message that server sent, before
 * anything reads it: tool results, errors, log messages, instructions, prompts, resources,
 * listings and questions alike (issue 37 §7). Called once per message where every message of a
 * server comes in (downstream/era/era-link.ts). A secret is found as written, or as JSON writes it
 * inside a string; a server that encodes it otherwise (base64, \u escapes) is not second-guessed.
 * A secret split across the text items of a result is masked too (see maskAcrossItems).
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
    maskAcrossItems(value, redactor);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const masked = maskValue(item, redactor);
    const name = redactor.redact(key);
    if (name !== key) delete record[key];
    // Defined, not assigned: a key "__proto__" stays a key.
    if (name !== key || masked !== item) {
      Object.defineProperty(record, name, { value: masked, writable: true, enumerable: true, configurable: true });
    }
  }
}

function maskValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === "string") return redactor.redact(value);
  if (typeof value !== "object" || value === null) return value;
  const raw = rawJsonOf(value);
  if (raw) {
    const text = decoded(raw);
    // A secret across two text items shows only in their parsed texts: parsed then, and then only.
    if (!mayStandAcross(text, redactor.inJson)) return maskedRaw(raw, text, redactor) ?? value;
  }
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
function maskedRaw(pieces: Uint8Array[], text: string, redactor: Redactor): object | undefined {
  const bytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
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

function decoded(pieces: Uint8Array[]): string {
  const decoder = new TextDecoder();
  let text = "";
  for (const piece of pieces) text += decoder.decode(piece, { stream: true });
  return text + decoder.decode();
}

const MASK_BYTES = new TextEncoder().encode(MASK);

/** A text content item (`{"type": "text", "text": …}`), as results, prompts and sampling carry them. */
const isTextItem = (item: unknown): item is { type: "text"; text: string } =>
  typeof item === "object" && item !== null && (item as { type?: unknown }).type === "text" &&
  typeof (item as { text?: unknown }).text === "string";

/**
 * Whether a secret may stand across two `"text"` strings of JSON text, seen without parsing it: the
 * strings' ends and starts (a secret's length of each, a short string whole) joined in order, and
 * searched for a secret over a boundary. Cheap where parsing is not (a 32 MiB result of two items
 * took 744 ms parsed and masked, 221 ms searched raw); a false alarm costs only that parse.
 */
function mayStandAcross(text: string, secrets: readonly string[]): boolean {
  const starts = [...text.matchAll(/"text"\s*:\s*"/g)].map((found) => found.index + found[0].length);
  if (starts.length < 2) return false;
  const reach = secrets[0].length;
  let window = "";
  const boundaries: number[] = [];
  for (const start of starts) {
    const end = stringEnd(text, start);
    if (window !== "") boundaries.push(window.length);
    // A character no JSON text holds raw keeps a string's start and end from joining.
    window += end - start <= 2 * reach ? text.slice(start, end) : `${text.slice(start, start + reach)}\n${text.slice(end - reach, end)}`;
  }
  for (const secret of secrets) {
    for (let at = window.indexOf(secret); at >= 0; at = window.indexOf(secret, at + 1)) {
      if (boundaries.some((boundary) => boundary > at && boundary < at + secret.length)) return true;
    }
  }
  return false;
}

/** Where the JSON string starting at `start` (after its quote) ends: its closing quote, not one escaped. */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let slashes = 0;
    while (text[quote - 1 - slashes] === "\\") slashes++;
    if (slashes % 2 === 0) return quote;
  }
  return text.length;
}

/**
 * A secret split across the text items of one array (a result's content): a client puts their
 * texts side by side before the model, so they are searched joined, and each piece of a secret that
 * stands across two items or more is masked in its own item (one mask a piece). A secret within one
 * item was masked with it.
 */
function maskAcrossItems(items: unknown[], redactor: Redactor): void {
  const texts = items.filter(isTextItem);
  if (texts.length < 2) return;
  const joined = texts.map((item) => item.text).join("");
  const starts: number[] = [];
  let at = 0;
  for (const item of texts) {
    starts.push(at);
    at += item.text.length;
  }
  const hidden = new Uint8Array(joined.length);
  for (const secret of redactor.inJson) {
    for (let found = joined.indexOf(secret); found >= 0; found = joined.indexOf(secret, found + 1)) {
      const end = found + secret.length;
      // Within one item: its own masking saw it.
      if (starts.some((start) => start > found && start < end)) hidden.fill(1, found, end);
    }
  }
  if (!hidden.includes(1)) return;
  texts.forEach((item, index) => {
    const from = starts[index];
    let text = "";
    for (let char = 0; char < item.text.length; char++) {
      const masked = hidden[from + char] === 1;
      if (!masked) text += item.text[char];
      else if (char === 0 || hidden[from + char - 1] !== 1) text += MASK;
    }
    item.text = text;
  });
}

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
