/**
 * Step: record, the first, so that it sees every outcome. One audit log line for a call that went
 * through the pipeline (the log itself is trust/audit-log.ts, where each outcome is defined): the
 * outcome from the step that stopped the call, the client's cancellation, or the result; its size;
 * the arguments, masked, when the configuration asks.
 */
import type { CallToolResult } from "../../protocol/sdk.ts";
import { type AuditEntry, type AuditLog, boundedArguments, MAX_ARGUMENT_CHARS, type Outcome } from "../../trust/audit-log.ts";
import { resultFacts } from "../../trust/result-facts.ts";
import { utf8Bytes } from "../../transport/utf8.ts";
import { configRedactor, serverRedactor, shownValue } from "../../trust/shown-arguments.ts";
import type { Result } from "./values.ts";
import type { Step, ToolCall } from "./step.ts";

export const record: Step = (next) => async (call) => {
  const audit = call.session.audit;
  // Without an audit log the next step's promise is the call's: no step of its own (issue 42).
  if (!audit) return next(call);
  const started = Date.now();
  const clock = performance.now();
  // The arguments as the caller gave them: a step on the way may put another object in their place.
  const args = call.args;
  const result = await next(call);
  recordCall(audit, { call, args, result, started, durationMs: performance.now() - clock });
  return result;
};

export interface FinishedCall {
  call: Pick<ToolCall, "id" | "session" | "request" | "note" | "span">;
  args: Record<string, unknown>;
  result: Result<CallToolResult>;
  /** Date.now() at the start. */
  started: number;
  durationMs: number;
}

export function recordCall(log: AuditLog, finished: FinishedCall): void {
  const { call: { id, session, request, note }, result } = finished;
  const facts = result.ok ? resultFacts(result.value) : undefined;
  const outcome: Outcome = note.outcome ?? (request.signal.aborted ? "cancelled" : !facts ? "failed" : facts.isError ? "tool error" : "ok");
  const entry: AuditEntry = {
    time: new Date(finished.started).toISOString(),
    ...(session.sessionId !== undefined && { session: session.sessionId }),
    ...(session.clientName !== undefined && { client: session.clientName }),
    toolbox: id.toolbox,
    server: id.server,
    tool: id.name,
    outcome,
    durationMs: Math.round(finished.durationMs * 10) / 10,
    // A failure reaches the client as a tool result holding its text: that result's size.
    resultBytes: facts?.bytes ?? (result.ok ? 0 : errorResultBytes(result.error)),
  };
  if (log.withArguments) {
    const config = session.config;
    const toolbox = Object.hasOwn(config.toolboxes, id.toolbox) ? config.toolboxes[id.toolbox] : undefined;
    const server = toolbox && Object.hasOwn(toolbox.mcpServers, id.server) ? toolbox.mcpServers[id.server] : undefined;
    // Every configured secret, not only this server's: another server's key passed here is masked too.
    const redactor = configRedactor(config, server && serverRedactor(server));
    // Each string is cut (after masking) before the whole is measured: a 12 MB argument is not copied again.
    const shown = shownValue(finished.args, { redact: (text) => redactor.redact(text).slice(0, MAX_ARGUMENT_CHARS + 1) });
    entry.arguments = boundedArguments(shown);
  }
  const context = (finished.call.span ?? request.span)?.context;
  if (context) {
    entry.trace_id = context.traceId;
    entry.span_id = context.spanId;
  }
  log.record(entry);
}

function errorResultBytes(text: string): number {
  return utf8Bytes(JSON.stringify({ content: [{ type: "text", text }], isError: true }));
}
