/**
 * Approval by the user before a call (issue 29 §2, issue 37 §5): the question (a form elicitation
 * that names toolbox, server and tool and shows every argument, secrets masked, with the digest of
 * the arguments it approves and a "for this session, with any arguments" box), and what the answer
 * means. The answer comes only from the client's answer to our own
 * question: nothing in the call's arguments or `_meta` is read here. Plain data in, plain data
 * out; asking is given as a function (the session's elicitation, in either protocol revision).
 */
import type { ConfirmPolicy } from "../config/index.ts";
import { policyText } from "./confirm-policy.ts";
import { shownValue } from "./shown-arguments.ts";
import { argumentsDigest } from "./approvals.ts";
import { MASK } from "../address/redact.ts";

/** The form's one field: approve this tool, with any arguments, for the rest of the session. */
export const FOR_THIS_SESSION = "forThisSession";

export interface ApprovalRequest {
  toolbox: string;
  server: string;
  tool: string;
  /** The arguments as they will be sent (a snapshot: see tools/pipeline/approve.ts), all of them shown. */
  args: Record<string, unknown>;
  policy: ConfirmPolicy | undefined;
  /** Masks the server's configured secrets. */
  redact: (text: string) => string;
  /** The longest arguments' text the question shows (the server's "confirmMaxChars"). */
  maxChars: number;
  /**
   * The team member on whose behalf the call runs (a client of `serve --http`); none for the one
   * local user. A question shown to a person who approves for others says whose call it is.
   */
  member?: string;
}

/** Accepted (once or for the session), or not: declined, dismissed, or not asked at all. */
export type Answer =
  | { approved: true; forSession: boolean }
  | { approved: false; reason: string };

/** The question to send, with the digest of the arguments it approves; or why it cannot be asked. */
export type Question =
  | { ok: true; params: Record<string, unknown>; digest: string }
  | { ok: false; reason: string };

/**
 * The params of the elicitation/create request that asks the user. Every argument is shown, whole
 * and at any depth (only secrets masked, see shown-arguments.ts): arguments longer than the
 * question may show are not asked about at all, so that no approval covers a part nobody saw.
 */
export function approvalQuestion(request: ApprovalRequest): Question {
  const { toolbox, server, tool, member } = request;
  const text = JSON.stringify(shownValue(request.args, { redact: request.redact }), null, 2) ?? "{}";
  if (text.length > request.maxChars) {
    return {
      ok: false,
      reason: `the call needs the user's approval and its arguments take ${text.length} characters, more than the ` +
        `${request.maxChars} an approval question shows whole ("confirmMaxChars"), so it cannot be approved: ` +
        `no call is approved on a part the user was not shown; raise "confirmMaxChars" on server '${server}' ` +
        `of toolbox '${toolbox}' (or at the top of the configuration) to allow such calls`,
    };
  }
  const digest = argumentsDigest(request.args);
  const masked = text.includes(MASK)
    ? `\n${MASK} stands for a value of a key named like a secret (password, token, apiKey...) or for a secret ` +
      `in this server's configuration: they are sent as they are.`
    : "";
  return {
    ok: true,
    digest,
    params: {
      message: `Allow the call of tool '${tool}' of server '${server}' (toolbox '${toolbox}')` +
        `${member === undefined ? "" : ` on behalf of client '${member}'`} with these arguments, ` +
        `all of them (sha-256 ${digest})?\n${text}${masked}`,
      requestedSchema: {
        type: "object",
        properties: {
          [FOR_THIS_SESSION]: {
            type: "boolean",
            title: "For this session, with any arguments",
            description: `Allow every call of '${tool}' of server '${server}' (toolbox '${toolbox}'), whatever its arguments, ` +
              `until this session ends, without asking again`,
            default: false,
          },
        },
      },
    },
  };
}

/** The client's answer to the question: only an explicit "accept" approves (anything else fails closed). */
export function readAnswer(result: Record<string, unknown>): Answer {
  if (result.action === "accept") {
    const content = result.content as Record<string, unknown> | undefined;
    return { approved: true, forSession: content?.[FOR_THIS_SESSION] === true };
  }
  if (result.action === "decline") return { approved: false, reason: "the user declined the call" };
  if (result.action === "cancel") return { approved: false, reason: "the user declined the call (dismissed the question)" };
  return { approved: false, reason: "the user declined the call (the client's answer approved nothing)" };
}

/** Why a call that needs approval is refused when the client cannot ask, and how to change that. */
export function cannotAsk(request: ApprovalRequest, why: string): string {
  const { toolbox, server, tool } = request;
  return `the call needs the user's approval (${policyText(request.policy)} on server '${server}' of toolbox '${toolbox}'), ` +
    `and ${why}: use a client that supports form elicitation, or change "confirm" on that server ` +
    `in the configuration ("never", or a list of tools without '${tool}')`;
}

/** True when declared client capabilities include form elicitation (an empty `elicitation` object means form, as MCP says). */
export function asksForms(capabilities: { elicitation?: object } | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  if (typeof elicitation !== "object" || elicitation === null) return false;
  return "form" in elicitation || !("url" in elicitation);
}
