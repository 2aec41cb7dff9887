/**
 * Approval by the user before a call (issue 29 §2): the question (a form elicitation that names
 * toolbox, server and tool and shows the arguments, secrets masked, with a "for this session"
 * box), and what the answer means. The answer comes only from the client's answer to our own
 * question: nothing in the call's arguments or `_meta` is read here. Plain data in, plain data
 * out; asking is given as a function (the session's elicitation, in either protocol revision).
 */
import type { ConfirmPolicy } from "../config/index.ts";
import { policyText } from "./confirm-policy.ts";
import { shownValue } from "./shown-arguments.ts";

/** The form's one field: approve this tool for the rest of the session. */
export const FOR_THIS_SESSION = "forThisSession";
/** Argument values are cut to this many characters in the question, lists to this many items. */
const SHOWN_CHARS = 200;
const SHOWN_ITEMS = 20;
const SHOWN_DEPTH = 4;
/** The arguments' part of the question at most; a client shows it as it is. */
const MAX_SHOWN_ARGUMENTS = 4_000;

export interface ApprovalRequest {
  toolbox: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  policy: ConfirmPolicy | undefined;
  /** Masks the server's configured secrets. */
  redact: (text: string) => string;
}

/** Accepted (once or for the session), or not: declined, dismissed, or not asked at all. */
export type Answer =
  | { approved: true; forSession: boolean }
  | { approved: false; reason: string };

/** The params of the elicitation/create request that asks the user. */
export function approvalQuestion(request: ApprovalRequest): Record<string, unknown> {
  const { toolbox, server, tool } = request;
  return {
    message: `Allow the call of tool '${tool}' of server '${server}' (toolbox '${toolbox}')?\n` +
      `Arguments: ${shownArguments(request)}`,
    requestedSchema: {
      type: "object",
      properties: {
        [FOR_THIS_SESSION]: {
          type: "boolean",
          title: "For this session",
          description: `Allow '${tool}' of server '${server}' (toolbox '${toolbox}') until this session ends, without asking again`,
          default: false,
        },
      },
    },
  };
}

function shownArguments(request: ApprovalRequest): string {
  const shown = shownValue(request.args, {
    redact: request.redact,
    maxChars: SHOWN_CHARS,
    maxItems: SHOWN_ITEMS,
    maxDepth: SHOWN_DEPTH,
  });
  const text = JSON.stringify(shown, null, 2);
  return text.length <= MAX_SHOWN_ARGUMENTS ? text : `${text.slice(0, MAX_SHOWN_ARGUMENTS)}… (${text.length} characters)`;
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
