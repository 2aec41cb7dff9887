/**
 * The audit log (issue 29 §3): one JSON line per tool call through callTool, appended to the file
 * `auditLog` names (created with mode 0600). Lines are written in the order the calls ended, one
 * append at a time, so concurrent calls never interleave; lines that come while an append is
 * under way go together in the next one. A write that fails never fails a call: it is reported
 * once on stderr, and later lines are tried again.
 *
 * Outcomes, one definition each:
 * - "ok": the server answered the call with a result (an `input_required` asking for more too);
 * - "tool error": the server answered with a result marked `isError`;
 * - "failed": the call got no result from the tool: an unknown toolbox, server or tool, arguments
 *   that fail the schema, a server that cannot be reached, a timeout, an error answer, a crash;
 * - "declined": the call needed the user's approval and did not get it (declined, dismissed, not
 *   answered, or a client that cannot ask): the server never saw it;
 * - "withheld": the tool is withheld by pinning (its fingerprint changed, or it is new);
 * - "cancelled": the client cancelled the call before it ended (while the user was asked too).
 */
/**
 * Lines waiting for a write that does not end (a hung network disk) are dropped past this many
 * (about 20 MB), and that is said once: the log must not take the workbench's memory with it.
 */
const MAX_PENDING_LINES = 100_000;

/**
 * The arguments of one line, as JSON, are cut past this many characters (with the marker below):
 * one call's 3 MB argument must not make a 3 MB line, and 4 KiB shows what a call was about.
 */
export const MAX_ARGUMENT_CHARS = 4096;
export const CUT_MARKER = "… [cut: the arguments are longer than 4096 characters]";

/**
 * What JSON.stringify leaves unescaped that a line reader may split on: NEL, LINE SEPARATOR and
 * PARAGRAPH SEPARATOR (Python's str.splitlines() splits on them; control characters such as \v,
 * \f and \x1c-\x1e are escaped by JSON already). They occur only inside strings, where the
 * escape means the same character.
 */
const LINE_BREAKERS = /[\u0085\u2028\u2029]/g;

/**
 * A toolbox, server, tool or client name is cut past this many characters (with the marker below):
 * a call names them as the model wrote them, and a use_tool of a tool named with 10 MB must not
 * make a 10 MB line. Tool names have at most 128 characters in MCP; configured names are short.
 */
export const MAX_NAME_CHARS = 256;
const cutName = (name: string) => {
  if (name.length <= MAX_NAME_CHARS) return name;
  const end = /[\ud800-\udbff]/.test(name[MAX_NAME_CHARS - 1]) ? MAX_NAME_CHARS - 1 : MAX_NAME_CHARS;
  return `${name.slice(0, end)}… [cut: ${name.length} characters]`;
};

/** One entry as one line, its names bounded: nothing in it breaks the line for any line reader. */
export function auditLine(entry: AuditEntry): string {
  const names = { toolbox: cutName(entry.toolbox), server: cutName(entry.server), tool: cutName(entry.tool) };
  const bounded = { ...entry, ...(entry.client !== undefined && { client: cutName(entry.client) }), ...names };
  const json = JSON.stringify(bounded).replace(LINE_BREAKERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `${json}\n`;
}

/** The arguments as written: as they are, or their JSON cut to MAX_ARGUMENT_CHARS with the marker. */
export function boundedArguments(value: unknown): unknown {
  const json = JSON.stringify(value) ?? "null";
  if (json.length <= MAX_ARGUMENT_CHARS) return value;
  // Never half a surrogate pair.
  const end = /[\ud800-\udbff]/.test(json[MAX_ARGUMENT_CHARS - 1]) ? MAX_ARGUMENT_CHARS - 1 : MAX_ARGUMENT_CHARS;
  return `${json.slice(0, end)}${CUT_MARKER}`;
}

export type Outcome = "ok" | "tool error" | "failed" | "declined" | "withheld" | "cancelled";

/** One line of the log, its keys in this order. */
export interface AuditEntry {
  /** When the call began (ISO 8601, UTC). */
  time: string;
  /** The session's id: calls of one client connection share it; a `call` subcommand has its own. */
  session?: string;
  /** The client's name where one is known (serving over HTTP). */
  client?: string;
  toolbox: string;
  server: string;
  tool: string;
  outcome: Outcome;
  /** From the call's start to its end, in milliseconds (0.1 ms steps). */
  durationMs: number;
  /** The size of the result's JSON in bytes (UTF-8): the tool's result, or the error the client got. */
  resultBytes: number;
  /** With `"auditArguments": true` only, secrets masked; JSON cut to a string with CUT_MARKER when long. */
  arguments?: unknown;
  /** With tracing on (issue 50): the call's trace, and its CLIENT span (the client's request's span when it never reached send). */
  trace_id?: string;
  span_id?: string;
}

/** Where the lines go: the platform's append (mode 0600 on creation) and stderr. */
export interface AuditSink {
  append(path: string, text: string): Promise<void>;
  warn(text: string): void;
}

export class AuditLog {
  readonly path: string;
  /** Whether entries carry the call's arguments (masked by the caller). */
  readonly withArguments: boolean;
  readonly #sink: AuditSink;
  #pending: string[] = [];
  #writing?: Promise<void>;
  #warned = false;
  #dropped = false;

  constructor(path: string, withArguments: boolean, sink: AuditSink) {
    this.path = path;
    this.withArguments = withArguments;
    this.#sink = sink;
  }

  record(entry: AuditEntry): void {
    if (this.#pending.length >= MAX_PENDING_LINES) return this.#drop();
    this.#pending.push(auditLine(entry));
    this.#writing ??= this.#drain();
  }

  /** Resolves once every line recorded so far is written (or has failed). */
  async flushed(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const text = this.#pending.join("");
        this.#pending = [];
        try {
          await this.#sink.append(this.path, text);
        } catch (error) {
          this.#failed(error);
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }

  #drop(): void {
    if (this.#dropped) return;
    this.#dropped = true;
    this.#sink.warn(
      `Audit log '${this.path}' is not being written: over ${MAX_PENDING_LINES} lines wait, later ones are dropped (this is said once)`,
    );
  }

  #failed(error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.#sink.warn(
      `Cannot write audit log '${this.path}': ${reason} ` +
        `(tool calls go on unrecorded; this is said once)`,
    );
  }
}

/** The audit log the configuration asks for, if any. */
export function openAuditLog(config: { auditLog?: string; auditArguments?: boolean }, sink: AuditSink): AuditLog | undefined {
  return config.auditLog === undefined ? undefined : new AuditLog(config.auditLog, config.auditArguments === true, sink);
}
