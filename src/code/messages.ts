/**
 * What the workbench and a sandbox worker say to each other. Only strings and plain data cross:
 * a script's arguments and a tool's result travel as JSON text, so nothing of either side's
 * objects (prototypes, getters, functions) reaches the other.
 */
import type { CodeModeLimits } from "../config/index.ts";

/** The workbench asks a worker to run one script. */
export interface RunMessage {
  type: "run";
  code: string;
  /** Per server, the tools a script may call (after filters): the names `tools` holds. */
  servers: Record<string, string[]>;
  limits: CodeModeLimits;
}

/** The answer to a script's tool call: the whole CallToolResult as JSON. */
export interface ReplyMessage {
  type: "reply";
  id: number;
  result: string;
}

export type ToWorker = RunMessage | ReplyMessage;

/**
 * A script calls a tool; `args` is JSON text, or null when they were not copied out: the tool is
 * none the script was given (RunMessage.servers), or the call is past maxCalls.
 */
export interface CallMessage {
  type: "call";
  id: number;
  server: string;
  name: string;
  args: string | null;
}

/** A line the script logged (console.log and the others). */
export interface LogMessage {
  type: "log";
  line: string;
}

/** The script ended: its value as JSON, or what went wrong. `broken` says the worker must not be used again. */
export type DoneMessage =
  | { type: "done"; ok: true; json: string }
  | { type: "done"; ok: false; error: string; broken?: boolean };

/** The engine is loaded and the script starts: its time counts from here. */
export interface StartedMessage {
  type: "started";
}

export type FromWorker = StartedMessage | CallMessage | LogMessage | DoneMessage;
