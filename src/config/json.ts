/** The configuration file's JSON: parsed, with the line and column of the first problem when it is not JSON. */
import { ConfigError } from "./errors.ts";
import { findJsonErrorOffset } from "./json-error-offset.ts";

const BYTE_ORDER_MARK = "\uFEFF";

/**
 * Parses the configuration file's text. On invalid JSON the error gives the
 * line and column of the first problem, computed here because JSON.parse
 * messages differ between runtimes and may quote the file's content.
 */
export function parseJson(text: string, path: string): unknown {
  const content = text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
  try {
    return JSON.parse(content);
  } catch {
    const offset = findJsonErrorOffset(content);
    if (offset === undefined) throw new ConfigError(`Invalid JSON in configuration file '${path}'`);
    const comma = trailingComma(content, offset);
    const { line, column } = locate(content, comma ?? offset);
    const problem = comma !== undefined
      ? `trailing comma before '${content[offset]}' (JSON allows no comma after the last item: remove this one)`
      : offset >= content.length
      ? "unexpected end of file"
      : `unexpected character ${describeCharacter(content, offset)}`;
    throw new ConfigError(`Invalid JSON in configuration file '${path}' at line ${line}, column ${column}: ${problem}`);
  }
}

/** Where the comma is when the character at `offset` closes an object or array right after one. */
function trailingComma(text: string, offset: number): number | undefined {
  if (text[offset] !== "}" && text[offset] !== "]") return undefined;
  let at = offset - 1;
  while (at >= 0 && " \t\n\r".includes(text[at])) at--;
  return text[at] === "," ? at : undefined;
}

/** 1-based line and column; CRLF, LF and lone CR end lines, and columns count code points. */
function locate(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split(/\r\n|\n|\r/);
  return { line: lines.length, column: [...lines.at(-1)!].length + 1 };
}

/** Quotes visible characters; names invisible ones, such as a stray no-break space, by code point. */
function describeCharacter(text: string, offset: number): string {
  const codePoint = text.codePointAt(offset)!;
  const char = String.fromCodePoint(codePoint);
  if (char === "'") return `"'"`;
  if (/^[\p{L}\p{N}\p{P}\p{S}]$/u.test(char)) return `'${char}'`;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}
