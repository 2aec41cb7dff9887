/**
 * One downstream tool call by its structured identifier: the path every call of a tool behind the
 * workbench takes, whoever asks for it (use_tool, run_code's scripts, the `call` command). Its
 * steps, each in its own file and each taking only what it needs: resolve, check arguments,
 * approve, call, record. No caller can skip one.
 */
import type { CallToolResult } from "../../protocol/sdk.ts";
import { resolveTool, type Resolving } from "./resolve.ts";
import { checkCallArguments } from "./check-arguments.ts";
import { approvedRetry, approveStep, type Asking } from "./approve.ts";
import { type Calling, sendCall } from "./call.ts";
import { recordCall, type Recording } from "./record.ts";
import { type CallNote, type Result, Success, type ToolId } from "./values.ts";
import { needsApproval } from "../../trust/confirm-policy.ts";

/** What a call needs: the sum of what its steps need. */
export type CallContext = Resolving & Asking & Calling & Recording;

/** Calls the tool through its toolbox's server; every failure is a value with the text the client sees. */
export function callTool(id: ToolId, args: Record<string, unknown>, ctx: CallContext): Promise<Result<CallToolResult>> {
  // Without an audit log the steps' promise is the call's: no step of its own (issue 42).
  if (!ctx.audit) return steps(id, args, ctx, {});
  return recorded(id, args, ctx, ctx.audit);
}

async function recorded(id: ToolId, args: Record<string, unknown>, ctx: CallContext, audit: NonNullable<CallContext["audit"]>): Promise<Result<CallToolResult>> {
  const started = Date.now();
  const clock = performance.now();
  const note: CallNote = {};
  const result = await steps(id, args, ctx, note);
  recordCall(audit, { id, args, ctx, note, result, started, durationMs: performance.now() - clock });
  return result;
}

async function steps(id: ToolId, args: Record<string, unknown>, ctx: CallContext, note: CallNote): Promise<Result<CallToolResult>> {
  const resolved = await resolveTool(id, ctx, note);
  if (!resolved.ok) return resolved;
  const { slot, tool } = resolved.value;
  const checked = checkCallArguments(id, args, tool, slot.config);
  if (!checked.ok) return checked;
  // A tool its server does not ask to confirm goes on without a step of its own (issue 42); the
  // approve step asks the same question first.
  const approval = needsApproval(slot.config.confirm, tool) ? await approveStep(id, args, tool, slot.config, ctx, note) : Success({ asked: false, args });
  if (!approval.ok) return approval;
  // What the user was shown is what is sent: approval.value.args.
  const called = await sendCall(id, approval.value.args, resolved.value, ctx);
  if (called.ok && approval.value.asked) approvedRetry(id, args, called.value, ctx);
  return called;
}
