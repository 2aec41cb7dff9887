/**
 * Step 3 of a tool call, approve (issue 29 §2, logic in src/trust/): before a call of a tool whose
 * server says `confirm`, the user is asked through the session's client, a form elicitation
 * related to the client's tools/call. A 2026-07-28 client gets it as an `input_required` result of
 * the call, under a key of ours apart from any server's, and answers with its retry (see
 * upstream/era/parked-calls.ts): the call waits for it and is not redone.
 */
import type { ServerConfig } from "../../config/index.ts";
import type { RequestId, Tool as McpTool } from "../../protocol/sdk.ts";
import { type CallInput, isInputRequired } from "../../protocol/wire.ts";
import type { Upstream } from "../../protocol/upstream.ts";
import { rawJsonOf } from "../../transport/raw-json.ts";
import { needsApproval } from "../../trust/confirm-policy.ts";
import { type ApprovalRequest, approvalQuestion, asksForms, cannotAsk, readAnswer } from "../../trust/confirm.ts";
import { approvalKey, type SessionApprovals } from "../../trust/approvals.ts";
import { serverRedactor } from "../../trust/shown-arguments.ts";
import { messageOf } from "../../protocol/errors.ts";
import { type CallNote, Failure, type Result, Success, type ToolId, whereOf } from "./values.ts";

/** The `from` of our question: its input request key in a 2026-07-28 result starts with it. */
export const APPROVAL_FROM = "mcp-workbench/confirm";

type CallId = ToolId;

/** What a session's approvals are to the approve step (see upstream/session-state.ts). */
export type KeptApprovals = { [K in keyof SessionApprovals]: SessionApprovals[K] };

/** What approving needs: whom to ask, within which request, and what the session approved. */
export interface Asking {
  /** The session the call works for: the question goes to its client. */
  upstream?: Upstream;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /** The id of the client's tools/call request, which the question is related to. */
  requestId?: RequestId;
  /** The client's answers to a server's input requests (2026-07-28): a retry's requestState. */
  input?: CallInput;
  /** What the user approved in this session ("for this session"); without it, each call is asked. */
  approvals?: KeptApprovals;
  /** With no client in front (the `call` command in a terminal): asks the user the question, y/N. */
  askUser?: (question: string) => Promise<boolean>;
}

/**
 * Go on (the user approved, or no approval is needed) with the arguments to send: after a question,
 * the snapshot the user was shown, whatever becomes of the caller's object meanwhile. Or stop with
 * the reason the client sees.
 */
export type Approval =
  | { approved: true; asked: boolean; args: Record<string, unknown> }
  | { approved: false; reason: string; cancelled: boolean };

export async function approveCall(
  id: CallId,
  args: Record<string, unknown>,
  tool: McpTool,
  config: ServerConfig,
  ctx: Asking,
): Promise<Approval> {
  if (!needsApproval(config.confirm, tool)) return { approved: true, asked: false, args };
  const key = approvalKey(id);
  if (ctx.approvals?.remembered(key)) return { approved: true, asked: false, args };
  // The retry of a call approved already, which its 2026-07-28 server asked for input.
  const state = ctx.input?.requestState;
  if (state !== undefined && ctx.approvals?.takeRetry(key, state, args)) return { approved: true, asked: true, args };
  const redactor = serverRedactor(config);
  const request: ApprovalRequest = {
    toolbox: id.toolbox,
    server: id.server,
    tool: id.name,
    // What is shown is what is sent: a copy nobody else holds.
    args: JSON.parse(JSON.stringify(args)),
    policy: config.confirm,
    redact: (text) => redactor.redact(text),
    maxChars: config.confirmMaxChars,
  };
  const upstream = ctx.upstream;
  if (!upstream && !ctx.askUser) return refused(cannotAsk(request, "there is no client to ask (the call subcommand asks only in a terminal)"));
  if (upstream && !asksForms(upstream.capabilities)) return refused(cannotAsk(request, "the client cannot ask the user: it declared no form elicitation"));
  const question = approvalQuestion(request);
  if (!question.ok) return refused(question.reason);
  if (!upstream) {
    const yes = await ctx.askUser!(String(question.params.message));
    return yes ? { approved: true, asked: true, args: request.args } : refused("the user declined the call");
  }
  let result: Record<string, unknown>;
  try {
    result = await upstream.request("elicitation/create", question.params, {
      signal: ctx.signal,
      relatedRequestId: ctx.requestId,
      timeout: config.maxCallTimeMs,
      from: APPROVAL_FROM,
    });
  } catch (error) {
    if (ctx.signal.aborted) return { approved: false, reason: "the client cancelled the call while the user was asked", cancelled: true };
    return refused(`the user declined the call: the client did not ask (${redactor.redact(messageOf(error))})`);
  }
  const answer = readAnswer(result);
  if (!answer.approved) return refused(answer.reason);
  if (answer.forSession) ctx.approvals?.remember(key);
  return { approved: true, asked: true, args: request.args };
}

/** After an approved call: a 2026-07-28 server's `input_required` lets the client's retry (same arguments) through unasked. */
export function approvedRetry(id: CallId, args: Record<string, unknown>, result: object, ctx: Asking): void {
  if (!ctx.approvals || rawJsonOf(result) || !isInputRequired(result)) return;
  if (typeof result.requestState === "string") ctx.approvals.allowRetry(approvalKey(id), result.requestState, args);
}

function refused(reason: string): Approval {
  return { approved: false, reason, cancelled: false };
}

/**
 * The step: go on, saying whether the user was asked, with the arguments to send (after a question,
 * the copy the user was shown); or the failure the client sees, a decline noted.
 */
export async function approveStep(
  id: ToolId,
  args: Record<string, unknown>,
  tool: McpTool,
  config: ServerConfig,
  ctx: Asking,
  note: CallNote,
): Promise<Result<{ asked: boolean; args: Record<string, unknown> }>> {
  const approval = await approveCall(id, args, tool, config, ctx);
  if (approval.approved) return Success({ asked: approval.asked, args: approval.args });
  if (!approval.cancelled) note.outcome = "declined";
  return Failure(`Error executing tool '${id.name}' ${whereOf(id)}: ${approval.reason}`);
}
