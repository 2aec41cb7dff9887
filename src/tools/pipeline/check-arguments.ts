/**
 * Step: check arguments. When the server's definition says `validateArguments`, the arguments are
 * checked against the tool's inputSchema (argument-check.ts) before any call reaches the server; a
 * wrong call gets what to fix and the schema, never the values sent.
 */
import { checkArguments } from "./argument-check.ts";
import { withoutSchemaKey } from "./schema-key.ts";
import { Failure, whereOf } from "./values.ts";
import type { Step } from "./step.ts";

export const checkCallArguments: Step = (next) => (call) => {
  const tool = call.tool!;
  if (!call.target!.config.validateArguments) return next(call);
  const check = checkArguments(tool, call.args);
  if (check.ok) return next(call);
  return Promise.resolve(Failure(
    `Invalid arguments for tool '${call.id.name}' ${whereOf(call.id)}:\n${check.problems.map((p) => `- ${p}`).join("\n")}\n` +
      `inputSchema: ${JSON.stringify(withoutSchemaKey(tool.inputSchema))}`,
  ));
};
