/**
 * One audit log line for a call that went through callTool (the log itself is trust/audit-log.ts,
 * where each outcome is defined): the outcome from the check that stopped the call, the client's
 * cancellation, or the result; its size; the arguments, masked, when the configuration asks.
 */
import type { CallToolResult } from "../protocol/sdk.ts";
import type { AuditEntry, AuditLog, Outcome } from "../trust/audit-log.ts";
import { resultFacts } from "../trust/result-facts.ts";
import { utf8Bytes } from "../transport/utf8.ts";
import { serverRedactor, shownValue } from "../trust/shown-arguments.ts";
import type { Result, ToolContext } from "./tool.ts";

/** What a check before the call decided, where the result alone does not tell. */
export interface CallNote {
  outcome?: "declined" | "withheld";
}

export interface FinishedCall {
  id: { toolbox: string; server: string; name: string };
  args: Record<string, unknown>;
  ctx: ToolContext;
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
    const redactor = config && serverRedactor(config);
    entry.arguments = shownValue(call.args, { redact: (text) => redactor?.redact(text) ?? text });
  }
  log.record(entry);
}

function errorResultBytes(text: string): number {
  return utf8Bytes(JSON.stringify({ content: [{ type: "text", text }], isError: true }));
}
