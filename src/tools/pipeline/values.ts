/**
 * What the steps of a tool call pass along (see pipeline.ts): the tool's identifier, results as
 * values (every failure is the text the client sees), and the note a step leaves for the record.
 */
import type { ToolName } from "../../toolboxes/session-offer.ts";

export { whereOf } from "../../toolboxes/session-offer.ts";

/** A tool behind the workbench, as use_tool names it. */
export type ToolId = ToolName;

/** A JSON-RPC error instead of a tool result: what a server's -32042 must stay for a client to act on it. */
export interface RpcError {
  code: number;
  data?: unknown;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: string; rpc?: RpcError };

export const Success = <T>(value: T): Result<T> => ({ ok: true, value });
export const Failure = <T = never>(error: string, rpc?: RpcError): Result<T> => ({ ok: false, error, ...(rpc && { rpc }) });

/** What a step before the call decided, where the result alone does not tell (for the audit log). */
export interface CallNote {
  outcome?: "declined" | "withheld";
  /** What the send threw, for the CLIENT span's `error.type` (the result holds only its text). */
  thrown?: unknown;
}
