/**
 * What the audit log records of a tool result without changing its cost: its size in bytes (of
 * its JSON) and whether it is a tool error. A result relayed as the server's bytes (over 1 MiB,
 * see transport/raw-json.ts) is measured and searched in its bytes, never parsed.
 */
import { rawIncludes, rawJsonOf } from "../transport/raw-json.ts";
import { utf8Bytes } from "../transport/utf8.ts";

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
  return { bytes: utf8Bytes(JSON.stringify(result) ?? ""), isError: (result as { isError?: unknown }).isError === true };
}
