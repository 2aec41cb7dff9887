/**
 * What a script that did not end well is told: which limit it broke, or its error with the line
 * and column in the script as written (the engine's own wrapper adds one line before it).
 */
import type { CodeModeLimits } from "../config/index.ts";

/** Why the engine stopped a script before it ended by itself. */
export type Stop = "timeout" | "memory";

interface Dumped {
  name?: unknown;
  message?: unknown;
  stack?: unknown;
}

/** "Script stopped: ..." for a broken limit, "Script failed: ..." for an error of its own. */
export function describeFailure(error: unknown, stop: Stop | undefined, limits: CodeModeLimits): string {
  const { name, message, stack } = (typeof error === "object" && error !== null ? error : { message: error }) as Dumped;
  const text = typeof message === "string" ? message : String(message ?? error);
  if (stop === "timeout" || (name === "InternalError" && text === "interrupted")) {
    return `Script stopped: it ran past the time limit: timeoutMs (${limits.timeoutMs} ms)`;
  }
  if (stop === "memory" || (name === "InternalError" && /out of memory|memory access out of bounds/i.test(text))) {
    return `Script stopped: it used more memory than the limit: memoryMiB (${limits.memoryMiB} MiB)`;
  }
  if (name === "InternalError" && /stack overflow/i.test(text)) {
    return "Script stopped: its recursion went past the stack limit";
  }
  const where = typeof stack === "string" ? location(stack) : "";
  const kind = typeof name === "string" && name !== "" ? `${name}: ` : "";
  return `Script failed: ${kind}${text}${where}`;
}

/** ` (line 3, column 7)` from the first frame in the script, or nothing. */
function location(stack: string): string {
  const frame = /script\.js:(\d+)(?::(\d+))?/.exec(stack);
  if (!frame) return "";
  const line = Number(frame[1]) - 1;
  return frame[2] === undefined ? ` (line ${line})` : ` (line ${line}, column ${frame[2]})`;
}

/** Sucrase's "Unexpected token (3:7)" as the script's line and column. */
export function syntaxError(message: string): string {
  const at = /\((\d+):(\d+)\)\s*$/.exec(message);
  const text = message.replace(/\s*\(\d+:\d+\)\s*$/, "");
  return at ? `Script failed: SyntaxError: ${text} (line ${Number(at[1]) - 1}, column ${at[2]})` : `Script failed: SyntaxError: ${text}`;
}
