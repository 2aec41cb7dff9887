/**
 * One page of a kept result (issue 28): its items from a position on, as many as fit a budget of
 * JSON bytes. A page ends at the cleanest boundary that fits: between items, else after a line of a
 * text item, else between two characters (never inside a UTF-16 surrogate pair). An item that is
 * not text (an image, audio, a resource) cannot be cut: it is given whole, alone if it must be.
 */
import type { ContentBlock } from "../protocol/sdk.ts";
import { isLowSurrogate, utf8Bytes } from "./token-estimate.ts";
import { isHighSurrogate, type KeptResult } from "./result-store.ts";

export interface Page {
  content: ContentBlock[];
  /** The position after the page's last character or item. */
  end: number;
}

/** JSON bytes of an item in a content array (its comma included). */
function cost(item: ContentBlock): number {
  return utf8Bytes(JSON.stringify(item)) + 1;
}

/** The page of `kept` that starts at `offset` and fits `budget` bytes, at least one character or item long. */
export function pageFrom(kept: Pick<KeptResult, "items" | "starts">, offset: number, budget: number): Page {
  const { items, starts } = kept;
  const content: ContentBlock[] = [];
  let used = 0;
  let index = starts.findIndex((start, i) => i < items.length && offset < starts[i + 1]);
  if (index === -1) return { content, end: starts.at(-1)! };
  let position = offset;
  for (; index < items.length; index++) {
    const whole = items[index];
    const from = position - starts[index];
    const item = from > 0 && whole.type === "text" ? { ...whole, text: whole.text.slice(from) } : whole;
    // A text longer than the room left (a character is at least a byte) is not measured whole:
    // a page of a 32 MiB text costs the page, not the text.
    const size = item.type === "text" && item.text.length > budget - used ? Infinity : cost(item);
    if (used + size <= budget) {
      content.push(item);
      used += size;
      position = starts[index + 1];
      continue;
    }
    // A page that is at least half full ends between items rather than inside one.
    if (content.length > 0 && (item.type !== "text" || used >= budget / 2)) break;
    if (item.type !== "text") {
      content.push(item);
      position = starts[index + 1];
      break;
    }
    // What the item costs besides its text's JSON string ("" is 2 bytes of that string).
    const overhead = cost({ ...item, text: "" }) - 2;
    const length = cutLength(item.text, budget - used - overhead);
    if (length > 0) {
      content.push({ ...item, text: item.text.slice(0, length) });
      position += length;
    }
    break;
  }
  return { content, end: position };
}

/**
 * How much of `text` to give in `room` bytes of JSON string: the longest prefix that fits, ended
 * after its last line break when that keeps at least half of it, never between the two halves of a
 * surrogate pair, and at least one character (a whole pair) so that every page moves on.
 */
export function cutLength(text: string, room: number): number {
  let length = longestFit(text, room);
  if (length > 0 && length < text.length) {
    const line = text.lastIndexOf("\n", length - 1) + 1;
    if (line >= length / 2) length = line;
  }
  if (length > 0 && length < text.length && isHighSurrogate(text.charCodeAt(length - 1)) && isLowSurrogate(text.charCodeAt(length))) {
    length -= 1;
  }
  if (length === 0 && text.length > 0) {
    length = text.length > 1 && isHighSurrogate(text.charCodeAt(0)) && isLowSurrogate(text.charCodeAt(1)) ? 2 : 1;
  }
  return length;
}

/**
 * The longest prefix of `text` whose JSON string (quotes and escapes included) fits `room` UTF-8
 * bytes, measured in one pass: trying prefixes by their JSON copies cost about 17 copies of a page
 * for each page cut (issue 54: 300 pages of 1 MiB results unread, 500 MB to collect).
 */
function longestFit(text: string, room: number): number {
  let used = 2;
  let fit = 0;
  for (let index = 0; index < text.length;) {
    const code = text.charCodeAt(index);
    if (isHighSurrogate(code) && index + 1 < text.length && isLowSurrogate(text.charCodeAt(index + 1))) {
      // Cut between its halves, the high one is alone and escaped (\udXXX); whole, the pair is 4 bytes.
      if (used + 6 <= room) fit = index + 1;
      used += 4;
      if (used > room) break;
      index += 2;
      fit = index;
      continue;
    }
    used += jsonBytesOf(code);
    if (used > room) break;
    fit = ++index;
  }
  return fit;
}

/** UTF-8 bytes of one UTF-16 unit in a JSON string as JSON.stringify writes it (a surrogate here is alone). */
function jsonBytesOf(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return code >= 0xd800 && code <= 0xdfff ? 6 : 3;
}
