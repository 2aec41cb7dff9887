/**
 * Step: approve (issue 29 §2, logic in src/trust/). Before a call of a tool whose server says
 * `confirm`, the user is asked through the session's client, a form elicitation related to the
 * client's tools/call. A 2026-07-28 client gets it as an `input_required` result of the call, under
 * a key of ours apart from any server's, and answers with its retry (see
 * upstream/era/parked-calls.ts): the call waits for it and is not redone. After an approved call,
 * a 2026-07-28 server's own `input_required` lets the client's retry (same arguments) through unasked.
 */
import type { ServerConfig } from "../../config/index.ts";
import type { Tool as McpTool } from "../../protocol/sdk.ts";
import { isInputRequired } from "../../protocol/wire.ts";
import { rawJsonOf } from "../../transport/raw-json.ts";
import { needsApproval } from "../../trust/confirm-policy.ts";
import { approvalQuestion, type ApprovalRequest, asksForms, cannotAsk, readAnswer } from "../../trust/confirm.ts";
import { approvalKey } from "../../trust/approvals.ts";
import { serverRedactor } from "../../trust/shown-arguments.ts";
import { messageOf } from "../../protocol/errors.ts";
import { APPROVAL, APPROVAL_OUTCOME, GEN_AI_TOOL_NAME, serverAttributes } from "../../telemetry/index.ts";
import { Failure, whereOf } from "./values.ts";
import type { CallRequest, CallSession, Step, ToolCall } from "./step.ts";

/** The `from` of our question: its input request key in a 2026-07-28 result starts with it. */
export const APPROVAL_FROM = "mcp-workbench/confirm";

/**
 * Go on (the user approved, or no approval is needed) with the arguments to send: after a question,
 * the snapshot the user was shown, whatever becomes of the caller's object meanwhile. Or stop with
 * the reason the client sees.
 */
export type Approval =
  | { approved: true; asked: boolean; args: Record<string, unknown> }
  | { approved: false; reason: string; cancelled: boolean };

export const approve: Step = (next) => async (call) => {
  const { tool, target } = call;
  // A tool its server does not ask to confirm goes on without a step of its own (issue 42).
  if (!needsApproval(target!.config.confirm, tool!)) return next(call);
  let approval: Approval;
  try {
    approval = await approveCall(call, target!.config);
  } catch (error) {
    // What the session approved cannot be read (its store is down): the call is refused, never let through.
    return Failure(`Error executing tool '${call.id.name}' ${whereOf(call.id)}: ${messageOf(error)}`);
  }
  if (!approval.approved) {
    if (!approval.cancelled) call.note.outcome = "declined";
    return Failure(`Error executing tool '${call.id.name}' ${whereOf(call.id)}: ${approval.reason}`);
  }
  // What the user was shown is what is sent.
  call.args = approval.args;
  call.asked = approval.asked;
  const result = await next(call);
  // A retry that cannot be allowed (the store is down) is asked again: never taken twice, never let through unasked.
  if (result.ok && approval.asked) await approvedRetry(call, result.value).catch(() => {});
  return result;
};

/** Whether the call may go, asking the user when the server's `confirm` covers the tool. */
export async function approveCall(
  call: Pick<ToolCall, "id" | "args" | "tool" | "session" | "request">,
  config: ServerConfig,
): Promise<Approval> {
  const { id, args, session, request } = call;
  const tool = call.tool as McpTool;
  if (!needsApproval(config.confirm, tool)) return { approved: true, asked: false, args };
  const key = approvalKey(id);
  if (await session.approvals?.remembered(key)) return { approved: true, asked: false, args };
  // The retry of a call approved already, which its 2026-07-28 server asked for input.
  const state = request.input?.requestState;
  if (state !== undefined && await session.approvals?.takeRetry(key, state, args)) return { approved: true, asked: true, args };
  const redactor = serverRedactor(config);
  const shown: ApprovalRequest = {
    toolbox: id.toolbox,
    server: id.server,
    tool: id.name,
    // What is shown is what is sent: a copy nobody else holds.
    args: JSON.parse(JSON.stringify(args)),
    policy: config.confirm,
    redact: (text) => redactor.redact(text),
    maxChars: config.confirmMaxChars,
    ...(session.clientName !== undefined && { member: session.clientName }),
  };
  const approval = await ask(shown, session, request, config);
  if (approval.approved && approval.forSession) await session.approvals?.remember(key);
  return approval;
}

async function ask(
  shown: ApprovalRequest,
  session: CallSession,
  request: CallRequest,
  config: ServerConfig,
): Promise<Approval & { forSession?: boolean }> {
  const upstream = session.upstream;
  if (!upstream && !session.askUser) {
    return refused(cannotAsk(shown, "there is no client to ask (the call subcommand asks only in a terminal)"));
  }
  if (upstream && !asksForms(upstream.capabilities)) {
    return refused(cannotAsk(shown, "the client cannot ask the user: it declared no form elicitation"));
  }
  const question = approvalQuestion(shown);
  if (!question.ok) return refused(question.reason);
  // The question asked is an INTERNAL span of the call's request (telemetry on): how long the user took, what they said.
  const span = request.span?.child(APPROVAL, { ...serverAttributes(shown.toolbox, shown.server), [GEN_AI_TOOL_NAME]: shown.tool });
  let approval: (Approval & { forSession?: boolean }) | undefined;
  try {
    approval = await put(question.params, shown, session, request, config);
    return approval;
  } finally {
    const outcome = !approval ? "failed" : approval.approved ? "approved" : approval.cancelled ? "cancelled" : "declined";
    span?.setAttribute(APPROVAL_OUTCOME, outcome).end();
  }
}

/** Puts the question to the user, through the session's client (or the terminal of the call subcommand). */
async function put(
  params: Record<string, unknown>,
  shown: ApprovalRequest,
  session: CallSession,
  request: CallRequest,
  config: ServerConfig,
): Promise<Approval & { forSession?: boolean }> {
  const upstream = session.upstream;
  if (!upstream) {
    const yes = await session.askUser!(String(params.message));
    return yes ? { approved: true, asked: true, args: shown.args } : refused("the user declined the call");
  }
  let result: Record<string, unknown>;
  try {
    result = await upstream.request("elicitation/create", params, {
      signal: request.signal,
      relatedRequestId: request.id,
      timeout: config.maxCallTimeMs,
      from: APPROVAL_FROM,
    });
  } catch (error) {
    if (request.signal.aborted) {
      return { approved: false, reason: "the client cancelled the call while the user was asked", cancelled: true };
    }
    return refused(`the user declined the call: the client did not ask (${shown.redact(messageOf(error))})`);
  }
  const answer = readAnswer(result);
  if (!answer.approved) return refused(answer.reason);
  return { approved: true, asked: true, args: shown.args, forSession: answer.forSession };
}

/** After an approved call: a 2026-07-28 server's `input_required` lets the client's retry (same arguments) through unasked. */
async function approvedRetry(call: ToolCall, result: object): Promise<void> {
  const approvals = call.session.approvals;
  if (!approvals || rawJsonOf(result) || !isInputRequired(result)) return;
  // The arguments sent: the client's retry repeats them (the copy shown is the same JSON as the caller's).
  if (typeof result.requestState === "string") await approvals.allowRetry(approvalKey(call.id), result.requestState, call.args);
}

function refused(reason: string): Approval {
  return { approved: false, reason, cancelled: false };
}
