/**
 * Step: trace, just before send (issue 50). With telemetry on, the call gets a CLIENT span under
 * the SERVER span of the client's request (use_tool's, run_code's), named `tools/call {tool}`, with
 * the toolbox and server, and its context goes to the server in the request's `_meta`. Off, the
 * next step's promise is the call's: nothing is made, read or added.
 */
import { serverAnswer } from "../../downstream/call-lane.ts";
import { configRedactor, serverRedactor, shownValue } from "../../trust/shown-arguments.ts";
import type { Redactor } from "../../address/redact.ts";
import { downstreamPeer } from "../../downstream/traced-requests.ts";
import { type McpPeer, type Span, traceHeaders } from "../../telemetry/index.ts";
import { unreadResult } from "../../transport/raw-json.ts";
import type { Result } from "./values.ts";
import type { Step, ToolCall } from "./step.ts";

export const trace: Step = (next) => (call) => {
  const telemetry = call.session.telemetry;
  if (!telemetry || (!telemetry.tracing && !telemetry.metering)) return next(call);
  const request = { method: "tools/call", params: { name: call.id.name } };
  const span = telemetry.clientSpan(request, call.request.span, peerOf(call));
  call.span = span;
  // A span kept only for its duration (metrics on, traces off) has no context to pass on.
  if (span.context) call.meta = traceHeaders(span);
  // "recordContent": the arguments sent and the result, masked as everything shown of the server is.
  const redactor = telemetry.recordContent ? redactorOf(call) : undefined;
  const mask = (json: string) => redactor!.redactJson(json);
  // The arguments as the audit log shows them: values under keys named like secrets masked too.
  if (redactor) span.setContent("arguments", shownValue(call.args, { redact: (text) => redactor.redact(text) }), mask);
  return next(call).then((result) => {
    if (redactor && result.ok) span.setContent("result", result.value, mask);
    ended(span, call, result);
    return result;
  });
};

/**
 * Every secret the configuration holds (the called server's, the other servers', the members'),
 * masked in JSON text as written and as JSON escapes it (a secret with a quote or a backslash).
 */
function redactorOf(call: ToolCall): Redactor {
  return configRedactor(call.session.config, call.target ? serverRedactor(call.target.config) : undefined);
}

function ended(span: Span, call: ToolCall, result: Result<unknown>): void {
  if (result.ok) return span.end(unreadResult(result.value));
  const thrown = call.note.thrown;
  // The server's JSON-RPC error behind what send caught: its code is the span's error.type.
  const answer = serverAnswer(thrown);
  span.fail(answer ? { code: answer.code } : thrown);
}

function peerOf(call: ToolCall): McpPeer {
  return downstreamPeer(call.target?.config, call.id.toolbox, call.id.server);
}
