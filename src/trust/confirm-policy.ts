/**
 * Which calls need the user's approval: a server's `confirm` policy applied to one of its tools.
 * "destructive" trusts the server's own annotation: a tool that does not say `destructiveHint:
 * true` is not asked about (name such tools in a list instead).
 */
import type { ConfirmPolicy } from "../config/index.ts";

/** What the policy reads of a tool: its name and the server's annotations for it. */
export interface ToolFacts {
  name: string;
  annotations?: { destructiveHint?: boolean };
}

export function needsApproval(policy: ConfirmPolicy | undefined, tool: ToolFacts): boolean {
  if (policy === undefined || policy === "never") return false;
  if (policy === "all") return true;
  if (policy === "destructive") return tool.annotations?.destructiveHint === true;
  return policy.includes(tool.name);
}

/** The policy as the configuration file has it, for messages: `"confirm": "destructive"`. */
export function policyText(policy: ConfirmPolicy | undefined): string {
  return `"confirm": ${JSON.stringify(policy ?? "never")}`;
}
