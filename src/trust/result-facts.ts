/**
 * What the audit log records of a tool result without changing its cost: its size in bytes (of
 * its JSON) and whether it is a tool error. A result relayed as the server's bytes (over 1 MiB,
 * see transport/raw-json.ts) is measured and searched in its bytes, never parsed.
 */
import { rawIncludes, rawJsonOf } from "../transport/raw-json.ts";

export interface ResultFacts {
  bytes: number;
  isError: boolean;
}

export function resultFacts(result: object): ResultFacts {
  const raw = rawJsonOf(result);
  if (raw) {
    const bytes = raw.reduce((sum, piece) => sum + piece.byteLength, 0);
    // In a JSON string the word would be escaped (\"isError\"): only the member itself matches.
    const isError = rawIncludes(result, '"isError":true') === true || rawIncludes(result, '"isError": true') === true;
    return { bytes, isError };
  }
  return { bytes: utf8Length(JSON.stringify(result) ?? ""), isError: (result as { isError?: unknown }).isError === true };
}

/** The UTF-8 size of a string, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: two UTF-16 units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
