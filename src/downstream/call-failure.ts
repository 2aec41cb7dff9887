/**
 * The words for what went wrong: a failed call (a crash names the exit and what the server said
 * last, a timeout its limit) and an initialize answered with an error.
 */
import { ErrorCode, McpError } from "../protocol/sdk.ts";
import { messageOf } from "../protocol/errors.ts";
import { CallError } from "./call-lane.ts";
import type { ServerLink } from "./links/link.ts";
import type { CallLimits } from "./session-options.ts";

/** How long a failure waits for the child's exit status, to name it instead of a broken pipe. */
export const EXIT_REPORT_MS = 500;

/** The session's state a closed call is explained by. */
export interface FailureContext {
  link: ServerLink;
  /** The session is closing on purpose: a closed call is no crash. */
  closing: boolean;
  lostReason?: string;
}

/** The words for a failed call: a crash names the exit, a timeout names its limit. */
export async function explainFailure(
  error: unknown,
  { callTimeoutMs, maxCallTimeMs }: CallLimits,
  context: FailureContext,
): Promise<string> {
  if (!(error instanceof CallError)) return messageOf(error);
  switch (error.failure.kind) {
    case "remote":
      return error.failure.message;
    case "idle-timeout":
      return `no answer within the call timeout of ${callTimeoutMs} ms (callTimeoutMs)`;
    case "max-time":
      return `call exceeded the maximum call time of ${maxCallTimeMs} ms (maxCallTimeMs)`;
    case "cancelled":
      return "cancelled by the client";
    case "closed": {
      const ended = context.closing ? undefined : await context.link.endedWithin(EXIT_REPORT_MS);
      // A crash during the call: what the server said last on stderr, as for a failed start.
      if (ended) return await context.link.explain?.(ended) ?? ended;
      return context.lostReason ?? "connection closed";
    }
  }
}

/** Why a start failed, in the words the user sees. */
export async function explainStartFailure(
  error: unknown,
  link: ServerLink,
  { timedOut, linkLost, notJson }: { timedOut: boolean; linkLost?: string; notJson?: string },
): Promise<string> {
  // The server's own error answer (an unsupported protocol version) is the reason, even if it exited after it.
  const answered = isServerAnswer(error);
  const ended = timedOut || answered ? undefined : await link.endedWithin(EXIT_REPORT_MS);
  // Why the link was lost (a remote server out of reach) says more than the SDK's error.
  const lost = timedOut || answered ? undefined : linkLost;
  const said = ended ? `${ended} during initialization` : link.redact(lost ?? messageOf(error));
  // A usage line or a banner on stdout, where only MCP messages may go: the clue of a server that never
  // answers, or that exited saying nothing on stderr (a crash's own stderr says more).
  const clue = notJson !== undefined && (timedOut || !(await link.saidAnything?.()));
  const reason = !clue
    ? said
    : `${said}; it wrote on stdout, where only MCP messages may go: ${notJson} (does it need an argument to serve MCP over stdio?)`;
  // MCP clients hide our stderr: what the server said last goes into the message itself.
  return await link.explain?.(reason) ?? reason;
}

/** A JSON-RPC error the server sent, not one the SDK made up for a closed link or a timeout. */
function isServerAnswer(error: unknown): boolean {
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout;
}
