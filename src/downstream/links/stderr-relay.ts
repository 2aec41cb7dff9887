/** Copies a child's stderr to ours line by line, each line prefixed with `[toolbox/server] `. */
import { LineSplitter } from "../../transport/line-splitter.ts";

/** A log line longer than this is cut: stderr is for people, and one line must not hold memory. */
const MAX_LOG_LINE_BYTES = 64 * 1024;
/** What of a server's stderr goes into its failure message: MCP clients hide our stderr. */
const TAIL_LINES = 3;
const TAIL_CHARS = 300;
/** The line that says what failed gets at most this much of TAIL_CHARS when later lines follow. */
const FIRST_ERROR_CHARS = 200;
/** How far back that line is looked for: a Node stack or a Python traceback fits, hours of logs do not. */
const WINDOW_LINES = 100;

/** The alternatives as one non-capturing group: a long pattern written a line an alternative. */
function oneOf(alternatives: RegExp[]): string {
  return `(?:${alternatives.map((alternative) => alternative.source).join("|")})`;
}

/**
 * A line that says what failed, as runtimes word it: `Error: ...`, `TypeError: ...`,
 * `Error [ERR_MODULE_NOT_FOUND]: ...`, `json.decoder.JSONDecodeError: ...`, `error: ...` (Deno,
 * Bun, Rust), `fatal: ...`, `panic: ...` (Go), `thread 'main' panicked at ...` (Rust),
 * `Exception in thread "main" ...` (Java), and a wrapper's `Fatal error: ...` or `Connection
 * error: ...` (mcp-remote; a few such words only: "Last error: none" says nothing failed).
 */
const ERROR_LINE = new RegExp(String.raw`^(?:Uncaught\s+)?` + oneOf([
  /[\w$.]*(?:Error|Exception)(?:Group)?(?:\s*\[[^\]]*\])?:/,
  /(?:(?:Fatal|Connection|Unhandled|Uncaught|Internal|Server|Startup|Transport) )?(?:error|fatal|panic)(?:\[\w+\])?:/,
  /Exception in thread /,
  /thread '[^']*' panicked/,
]), "i");
/**
 * A wrapper's log prefix before its lines: mcp-remote's `[pid] ` (twice, at times), a bracketed
 * time. One space after it, so that the indentation of what follows (a traceback's frames) stays;
 * not Node's `[cause]:`, which has no space after its bracket.
 */
const LOG_PREFIX = /^(?:\[[^\]\s]*\](?: |$))+/;
/** The error under the error, as Node (`[cause]: Error: connect ECONNREFUSED …`) and Java (`Caused by: …`) print it. */
const CAUSE_LINE = /^(?:\[cause\]|Caused by):\s*\S/;
/**
 * A launcher's own failure line, which says why the server never started: npm's (`npx`) `npm error
 * 404 Not Found - GET …` and `'x@*' is not in this registry` (not its code, its hints about
 * tarballs, nor where its log is), uv's (`uvx`) `× No solution found` and `╰─▶ Because x was not
 * found…`, pip's (`pipx`) `No matching distribution found for x`, docker's and podman's
 * `Error response from daemon: …` and `Unable to find image`.
 */
const LAUNCHER_LINE = new RegExp("^" + oneOf([
  /npm (?:error|ERR!) /,
  /[×╰─▶\s]*(?:×|╰─▶) /,
  /(?:docker|podman): Error response from daemon|Error response from daemon/,
  /No matching distribution found|Could not find a version that satisfies|Unable to find image /,
]));
/** npm's lines that say nothing of what failed. */
const NPM_NOISE = new RegExp("^npm (?:error|ERR!) " + oneOf([
  /code |syscall |errno |path |dest /,
  /A complete log|Log files were not written|You can rerun|This is probably not a problem/,
  /Note that you can also install|tarball, folder|\d{3}\s*$|\s*$/,
]));
/** At most this many launcher lines are shown: the one that failed and the one that explains it. */
const LAUNCHER_LINES = 2;

/** Python's traceback: its frames are indented, and the first line that is not names the exception. */
const TRACEBACK = /^Traceback \(most recent call last\):$/;

interface Kept {
  text: string;
  /** It says what failed. */
  error: boolean;
  /** A launcher (npx, uvx, pipx, docker) says why the server never started. */
  launcher: boolean;
  /** It says what an error line above it came from: a wrapper's (mcp-remote's) real reason. */
  cause: boolean;
}

/**
 * What a child wrote, without our prefix, for failure messages: its last non-blank lines and the
 * first line of the recent ones that says what failed. A stack trace ends with frames and runtime
 * versions (Node: `requireStack: [] | } | Node.js v20`), the error itself is at its top.
 */
export class StderrTail {
  readonly #lines: Kept[] = [];
  #inTraceback = false;

  push(line: string): void {
    const unprefixed = line.replace(LOG_PREFIX, "");
    const text = unprefixed.trim();
    if (text === "") return;
    const cause = CAUSE_LINE.test(text);
    // Python's exception groups draw their tracebacks in a frame of `|` and `+`.
    let error = cause || ERROR_LINE.test(text.replace(/^[|+\s]+/, ""));
    if (this.#inTraceback && !/^\s/.test(unprefixed)) {
      this.#inTraceback = false;
      error = true;
    }
    if (TRACEBACK.test(text)) this.#inTraceback = true;
    // A line of only punctuation (`}`, `^^^^`) says nothing.
    if (!/[\p{L}\p{N}]/u.test(text)) return;
    const launcher = LAUNCHER_LINE.test(text) && !NPM_NOISE.test(text);
    this.#lines.push({ text: shortened(text), error, launcher, cause });
    if (this.#lines.length > WINDOW_LINES) this.#lines.shift();
  }

  /**
   * At most 3 lines and 300 characters: the first line that says what failed (its start kept)
   * when it is not among the last ones, then its cause when one follows it, else the last lines
   * (the latest kept), joined by " | "; "" when nothing was written.
   */
  text(): string {
    const { first, last } = this.#parts();
    if (first === undefined) return last;
    return last === "" ? first : `${first} … ${last}`;
  }

  /** `reason`, followed by what the server said on stderr when it said anything. */
  explain(reason: string): string {
    const { first, last } = this.#parts();
    if (first !== undefined) return `${reason}; its stderr said: ${last === "" ? first : `${first} … ${last}`}`;
    return last === "" ? reason : `${reason}; its stderr ended with: ${last}`;
  }

  /** The words in the kept lines that look like environment variables (`GITHUB_TOKEN`, `API_KEY`). */
  variables(): string[] {
    return this.#lines.flatMap((line) => line.text.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Z]{3,}\b/g) ?? []);
  }

  #parts(): { first?: string; last: string } {
    const lines = this.#lines;
    // A launcher's failure is the whole story: what follows it is its hints and log paths.
    const launcher = lines.filter((line) => line.launcher).slice(0, LAUNCHER_LINES);
    if (launcher.length > 0) return { first: keepStart(launcher.map((line) => line.text).join(" | "), TAIL_CHARS), last: "" };
    const error = lines.find((line) => line.error);
    if (error === undefined || lines.indexOf(error) >= lines.length - TAIL_LINES) {
      return { last: keepEnd(lines.slice(-TAIL_LINES).map((line) => line.text).join(" | "), TAIL_CHARS) };
    }
    const cause = causeOf(lines, lines.indexOf(error));
    const first = keepStart((cause?.error ?? error).text, FIRST_ERROR_CHARS);
    if (cause) return { first, last: keepStart(cause.cause.text, TAIL_CHARS - first.length - " … ".length) };
    const last = lines.slice(-(TAIL_LINES - 1)).map((line) => line.text).join(" | ");
    return { first, last: keepEnd(last, TAIL_CHARS - first.length - " … ".length) };
  }
}

/**
 * A wrapper prints its error, a stack, then what caused it, then fields of it: the cause is the
 * story. The first cause line after line `from`, the error line it belongs to (the last before
 * it), and the deepest cause of its chain (Node's nested `[cause]`, Java's `Caused by:` lines).
 */
function causeOf(lines: Kept[], from: number): { error: Kept; cause: Kept } | undefined {
  const at = lines.findIndex((line, index) => index > from && line.cause);
  if (at === -1) return undefined;
  const ownError = (line: Kept) => line.error && !line.cause;
  let errorAt = at - 1;
  while (errorAt > from && !ownError(lines[errorAt])) errorAt--;
  let deepest = at;
  for (let index = at + 1; index < lines.length && !ownError(lines[index]); index++) if (lines[index].cause) deepest = index;
  return { error: lines[errorAt], cause: lines[deepest] };
}

/** A kept line never shows more than TAIL_CHARS of its start or of its end: the middle need not be held. */
function shortened(text: string): string {
  return text.length <= 2 * TAIL_CHARS ? text : `${text.slice(0, TAIL_CHARS)}…${text.slice(-TAIL_CHARS)}`;
}

function keepStart(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

function keepEnd(text: string, chars: number): string {
  return text.length <= chars ? text : `…${text.slice(text.length - chars + 1)}`;
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
