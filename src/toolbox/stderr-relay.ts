/** Copies a child's stderr to ours line by line, each line prefixed with `[toolbox/server] `. */
import { LineSplitter } from "../transport/line-splitter.ts";

/** A log line longer than this is cut: stderr is for people, and one line must not hold memory. */
const MAX_LOG_LINE_BYTES = 64 * 1024;
/** What of a server's stderr goes into its failure message: MCP clients hide our stderr. */
const TAIL_LINES = 3;
const TAIL_CHARS = 300;

/** The last few non-blank lines a child wrote, without our prefix, for failure messages. */
export class StderrTail {
  readonly #lines: string[] = [];

  push(line: string): void {
    const text = line.trim();
    if (text === "") return;
    this.#lines.push(text);
    if (this.#lines.length > TAIL_LINES) this.#lines.shift();
  }

  /** At most 3 lines and 300 characters (the latest kept), joined by " | "; "" when nothing was written. */
  text(): string {
    const text = this.#lines.join(" | ");
    return text.length <= TAIL_CHARS ? text : `…${text.slice(text.length - TAIL_CHARS + 1)}`;
  }

  /** `reason`, followed by what the server last said on stderr when it said anything. */
  explain(reason: string): string {
    const tail = this.text();
    return tail === "" ? reason : `${reason}; its stderr ended with: ${tail}`;
  }
}

/** Each line is relayed and kept as `redact` gives it: a server may print its own keys. */
export async function relayStderr(
  stderr: ReadableStream<Uint8Array>,
  prefix: string,
  write: (text: string) => void,
  tail?: StderrTail,
  redact: (line: string) => string = (line) => line,
): Promise<void> {
  const splitter = new LineSplitter(MAX_LOG_LINE_BYTES);
  const decoder = new TextDecoder();
  const emit = (bytes: Uint8Array) => {
    const line = redact(decoder.decode(bytes));
    tail?.push(line);
    write(`${prefix} ${line}\n`);
  };
  try {
    // Reading it is not optional: a child blocks once the pipe's buffer is full.
    for await (const chunk of stderr) {
      for (const event of splitter.push(chunk)) {
        if (event.kind === "line") emit(event.bytes);
        else write(`${prefix} (a line of ${event.bytes} bytes was left out)\n`);
      }
    }
  } catch {
    // The child is gone; what it wrote so far has been relayed.
  }
  const rest = splitter.rest();
  if (rest) emit(rest);
}
