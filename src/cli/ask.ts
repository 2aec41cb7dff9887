/**
 * A yes-or-no question on the terminal: the question on stderr (stdout stays the command's
 * output), one line read from stdin. Only "y" or "yes" is yes; anything else, or stdin closed
 * before a line, is no.
 */
import type { Platform } from "../platform/types.ts";

/** A line longer than this is no answer: it is read no further. */
const MAX_ANSWER = 256;

export async function askYesNo(platform: Platform, question: string): Promise<boolean> {
  platform.writeStderr(`${question} [y/N] `);
  const line = await readLine(platform.stdin);
  return /^\s*y(es)?\s*$/i.test(line ?? "");
}

/** The first line of `stream` (without its end), or undefined when it ends first or the line is too long. */
export async function readLine(stream: ReadableStream<Uint8Array>): Promise<string | undefined> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length <= MAX_ANSWER) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      text += decoder.decode(value, { stream: true });
      const end = text.indexOf("\n");
      if (end >= 0) return text.slice(0, end).replace(/\r$/, "");
    }
    return undefined;
  } finally {
    reader.releaseLock();
  }
}
