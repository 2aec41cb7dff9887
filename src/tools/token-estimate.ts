/** The one token estimate of the workbench: the context figures and the result cap (maxResultTokens) both count with it. */
import { utf8Bytes } from "../transport/utf8.ts";

export { isLowSurrogate, utf8Bytes } from "../transport/utf8.ts";

/**
 * Tokens, estimated as the UTF-8 bytes of the value's compact JSON divided by 4, rounded up: about
 * what common tokenizers give for JSON with English text (exact counts depend on the model).
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil(jsonBytes(JSON.stringify(value)) / 4);
}

function jsonBytes(json: string | undefined): number {
  return json === undefined ? 0 : utf8Bytes(json);
}
