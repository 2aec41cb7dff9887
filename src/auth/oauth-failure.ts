/**
 * Why an OAuth login failed, in words a user can act on: the SDK's errors quote a schema's issues
 * ("Invalid OAuth error response: [ { "expected": "string" …") or a parser's ("Unexpected token
 * '<'") when a server answers its OAuth requests with something that is not OAuth at all.
 */
import { messageOf } from "../protocol/errors.ts";

/** A server that answered initialize and tools/list without a token: there is nothing to log in to. */
export class NoLoginNeeded extends Error {
  override readonly name = "NoLoginNeeded";
  constructor() {
    super("the server needs no login: it answered initialize and tools/list without a token");
  }
}

/** The reason of a failed login, never a raw dump: the first line, or what the dump means. */
export function oauthFailureText(error: unknown): string {
  return dumpMeaning(error) ?? firstLine(messageOf(error));
}

/** What an SDK dump means (a schema's issues, a parser's complaint), or undefined for any other error. */
export function dumpMeaning(error: unknown): string | undefined {
  const text = messageOf(error);
  const status = /^HTTP (\d{3})\b/.exec(text)?.[1];
  if (/Invalid OAuth error response|Raw body:/.test(text)) {
    return `the server answered an OAuth request with HTTP ${
      status ?? "error"
    } and no OAuth error: it does not seem to offer an OAuth login (if it wants a token, set it in headers.Authorization)`;
  }
  if (isParseError(error, text)) {
    return "the server answered an OAuth request with something that is not JSON (an HTML page?): it does not seem to offer an OAuth " +
      "login (if it wants a token, set it in headers.Authorization)";
  }
  if (/^\s*\[\s*\{[\s\S]*"(expected|code)"/.test(text)) {
    return "the server's OAuth metadata is not valid (it lacks or misspells required fields): it does not seem to offer an OAuth login";
  }
  return undefined;
}

/** Anything else keeps its own words, one line of them at most 300 characters. */
function firstLine(text: string): string {
  const line = text.split("\n", 1)[0];
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function isParseError(error: unknown, text: string): boolean {
  return error instanceof SyntaxError || /JSON Parse error|Unexpected token|is not valid JSON|Unexpected end of JSON/.test(text);
}
