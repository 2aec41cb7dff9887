/**
 * Step 5 of a tool call, record: one audit log line for a call that went through the pipeline (the log itself is trust/audit-log.ts,
 * where each outcome is defined): the outcome from the check that stopped the call, the client's
 * cancellation, or the result; its size; the arguments, masked, when the configuration asks.
 */
import type { CallToolResult } from "../../protocol/sdk.ts";
import type { WorkbenchConfig } from "../../config/index.ts";
import { type AuditEntry, type AuditLog, boundedArguments, MAX_ARGUMENT_CHARS, type Outcome } from "../../trust/audit-log.ts";
import { resultFacts } from "../../trust/result-facts.ts";
import { utf8Bytes } from "../../transport/utf8.ts";
import { configRedactor, serverRedactor, shownValue } from "../../trust/shown-arguments.ts";
import type { CallNote, Result, ToolId } from "./values.ts";

/** What recording needs besides the call: who made it, whether it was cancelled, the server's secrets. */
export interface Recording {
  config: WorkbenchConfig;
  signal: AbortSignal;
  /** The session's own id (one per session, or per `call` command), for the audit log. */
  sessionId?: string;
  /** The client's name where one is known (serving over HTTP), for the audit log. */
  clientName?: string;
  /** Where each call is recorded, when the configuration has an `auditLog`. */
  audit?: AuditLog;
}

export interface FinishedCall {
  id: ToolId;
  args: Record<string, unknown>;
  ctx: Recording;
  note: CallNote;
  result: Result<CallToolResult>;
  /** Date.now() at the start. */
  started: number;
  durationMs: number;
}

export function recordCall(log: AuditLog, call: FinishedCall): void {
  const { id, ctx, note, result } = call;
  const facts = result.ok ? resultFacts(result.value) : undefined;
  const outcome: Outcome = note.outcome ?? (ctx.signal.aborted ? "cancelled" : !facts ? "failed" : facts.isError ? "tool error" : "ok");
  const entry: AuditEntry = {
    time: new Date(call.started).toISOString(),
    ...(ctx.sessionId !== undefined && { session: ctx.sessionId }),
    ...(ctx.clientName !== undefined && { client: ctx.clientName }),
    toolbox: id.toolbox,
    server: id.server,
    tool: id.name,
    outcome,
    durationMs: Math.round(call.durationMs * 10) / 10,
    // A failure reaches the client as a tool result holding its text: that result's size.
    resultBytes: facts?.bytes ?? (result.ok ? 0 : errorResultBytes(result.error)),
  };
  if (log.withArguments) {
    const toolbox = Object.hasOwn(ctx.config.toolboxes, id.toolbox) ? ctx.config.toolboxes[id.toolbox] : undefined;
    const config = toolbox && Object.hasOwn(toolbox.mcpServers, id.server) ? toolbox.mcpServers[id.server] : undefined;
    // Every configured secret, not only this server's: another server's key passed here is masked too.
    const redactor = configRedactor(ctx.config, config && serverRedactor(config));
    // Each string is cut (after masking) before the whole is measured: a 12 MB argument is not copied again.
    const shown = shownValue(call.args, { redact: (text) => redactor.redact(text).slice(0, MAX_ARGUMENT_CHARS + 1) });
    entry.arguments = boundedArguments(shown);
  }
  log.record(entry);
}

function errorResultBytes(text: string): number {
  return utf8Bytes(JSON.stringify({ content: [{ type: "text", text }], isError: true }));
}
