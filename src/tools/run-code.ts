/**
 * `run_code` (code mode, issue 28): runs a script against one toolbox's tools in the sandbox, and
 * only what the script returns reaches the model. Each of the script's tool calls goes through
 * callTool with run_code's own context, as a use_tool would: filters, progress, questions,
 * cancellation and every step of the call pipeline (tools/pipeline/) apply to it.
 */
import * as z from "zod";
import type { CallToolResult } from "../protocol/sdk.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import { Failure, Success, type Tool } from "./tool.ts";
import { nonBlank } from "./issues.ts";
import { toolboxNotFound } from "./lookup.ts";
import { allFailed } from "./open-toolbox.ts";
import { runToolCall, runUngivenCall } from "./pipeline/pipeline.ts";
import { pageResult, toolboxResultLimit } from "./page-result.ts";
import { runInSandbox, type ScriptOutcome } from "../code/sandbox.ts";
import type { OpenToolbox } from "../toolboxes/registry.ts";

const schema = z.strictObject({
  toolbox: nonBlank("Toolbox name").describe("The toolbox whose tools the script calls"),
  code: z.string({ error: "Expected the script as a string" })
    .describe("The body of an async function, JavaScript or TypeScript; its return value is the result"),
});

export const runCode: Tool<typeof schema, CallToolResult> = {
  name: "run_code",
  description: "Run a script against a toolbox's tools; only its return value, its logs and the number of calls " +
    "come back. `code` is the body of an async function (JavaScript or TypeScript). In it, " +
    "`await tools.<server>.<tool>(args)` gives the tool's structuredContent, else its text (parsed when it is JSON), " +
    'and throws on a tool error; `tools["server"]["odd-name"]` for other names; `await call(server, name, args)` ' +
    "gives the whole result and never throws; console.log is collected; Promise.all works. No network, files or timers. " +
    'Example: {"toolbox": "dev", "code": "const a = await tools.fs.list_directory({path: \\"/tmp\\"}); return a.length;"}. ' +
    "open_toolbox gives the toolbox's tools as TypeScript declarations (declarations).",
  schema,
  invalidInputPrefix: "Invalid parameters",
  async run({ toolbox: name, code }, { session, request }) {
    if (!Object.hasOwn(session.config.toolboxes, name)) return Failure(toolboxNotFound(session.config, name));
    const limits = session.config.toolboxes[name].codeMode;
    if (!limits) {
      return Failure(
        `Code mode is off for toolbox '${name}': turn it on with "codeMode": true at the top of the configuration ` +
          `or in toolbox '${name}'`,
      );
    }
    // Opened each time: a server stopped for being idle (or lost) starts again, as use_tool would start it.
    const toolbox = await session.offer.open(name, undefined, request.span);
    // As open_toolbox says it: a script against no server at all would only fail on `tools`.
    const failed = allFailed(toolbox);
    if (failed) return Failure(failed);
    const outcome = await runInSandbox({
      code,
      servers: toolNames(toolbox),
      limits,
      signal: request.signal,
      client: session.clientName,
      call: (server, tool, args, signal) => {
        const id = { toolbox: name, server, name: tool };
        const inner = { id: request.id, signal, onProgress: request.onProgress, span: request.span };
        // A tool the script was not given: its arguments stayed in the sandbox (code/call-budget.ts).
        return args === undefined ? resultOf(runUngivenCall(session, inner, id)) : resultOf(runToolCall(session, inner, id, args));
      },
    });
    // As a use_tool result: over the toolbox's maxResultTokens, cut and read on with read_result.
    const limit = toolboxResultLimit(session.config, name);
    return Success(await pageResult(presentOutcome(outcome), session.results, limit, name, request.span));
  },
  present: (value) => value,
};

/** run_code as this configuration's client sees it: its description names the toolboxes with code mode. */
export function runCodeFor(config: WorkbenchConfig, declarations: Record<string, string> = {}): typeof runCode {
  const names = Object.keys(config.toolboxes).filter((name) => config.toolboxes[name].codeMode);
  const known = names.filter((name) => declarations[name] !== undefined)
    .map((name) => `\nToolbox ${name}:\n${declarations[name]}`).join("");
  return { ...runCode, description: `${runCode.description} Toolboxes with code mode: ${names.join(", ")}.${known}` };
}

/** True when run_code is offered: code mode is on for at least one toolbox. */
export function codeModeOn(config: WorkbenchConfig): boolean {
  return Object.values(config.toolboxes).some((toolbox) => toolbox.codeMode !== undefined);
}

/** What `tools` holds: per connected server, its tools after filters. */
function toolNames(toolbox: OpenToolbox): Record<string, string[]> {
  const servers: Record<string, string[]> = {};
  for (const server of toolbox.servers) if (server.serverSession) servers[server.name] = server.tools.map((tool) => tool.name);
  return servers;
}

/**
 * One call of the script, as a request of its own within run_code's: the same id (the server's
 * questions relate to run_code's request), the script's signal, no answers of a 2026-07-28 client
 * (they belong to run_code's request). A failure before the server answers is a tool error the script sees.
 */
async function resultOf(called: ReturnType<typeof runToolCall>): Promise<CallToolResult> {
  const result = await called;
  return result.ok ? result.value : { content: [{ type: "text", text: result.error }], isError: true };
}

/** The script's value, logs and call count as structuredContent and the same JSON as text; a failure with the logs so far. */
function presentOutcome(outcome: ScriptOutcome): CallToolResult {
  if (outcome.ok) {
    const value = { result: outcome.result, logs: outcome.logs, calls: outcome.calls };
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  }
  const logs = outcome.logs.length > 0 ? `\nLogs so far:\n${outcome.logs.join("\n")}` : "";
  return {
    content: [{ type: "text", text: `${outcome.error}${logs}` }],
    structuredContent: { error: outcome.error, logs: outcome.logs, calls: outcome.calls },
    isError: true,
  };
}
