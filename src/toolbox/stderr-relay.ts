/** Copies a child's stderr to ours line by line, each line prefixed with `[toolbox/server] `. */
import { LineSplitter } from "../transport/line-splitter.ts";

/** A log line longer than this is cut: stderr is for people, and one line must not hold memory. */
const MAX_LOG_LINE_BYTES = 64 * 1024;

export async function relayStderr(
  stderr: ReadableStream<Uint8Array>,
  prefix: string,
  write: (text: string) => void,
): Promise<void> {
  const splitter = new LineSplitter(MAX_LOG_LINE_BYTES);
  const decoder = new TextDecoder();
  const emit = (bytes: Uint8Array) => write(`${prefix} ${decoder.decode(bytes)}\n`);
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
