/**
 * Tool calls for step tests (src/tools/pipeline/): a call as it reaches a step, with a session and
 * request of plain values, a stand-in server (`target`) and a `next` that records what it got.
 * No server runs.
 */
import type { CallToolResult, Tool } from "./sdk.ts";
import { validateConfig } from "../../src/config/index.ts";
import type { ServerConfig } from "../../src/config/index.ts";
import type { CallRequest, CallSession, Next, ToolCall } from "../../src/tools/pipeline/step.ts";
import type { CallTarget } from "../../src/toolboxes/call-target.ts";
import type { CallOptions } from "../../src/downstream/session-options.ts";
import { Success } from "../../src/tools/pipeline/values.ts";

export const TOOL_ID = { toolbox: "dev", server: "s", name: "echo" };

/** Server `s` of toolbox `dev` with these settings, as validateConfig gives it. */
export function serverOf(settings: Record<string, unknown> = {}): ServerConfig {
  return validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x", ...settings } } } } }).toolboxes.dev.mcpServers.s;
}

/** A stand-in server: answers each call with `answer` (or throws what it throws), and keeps what it was sent. */
export function stubTarget(
  config: ServerConfig,
  answer: (name: string, args: Record<string, unknown>) => CallToolResult = (name, args) => ({ content: [{ type: "text", text: `${name} ${JSON.stringify(args)}` }] }),
) {
  const sent: { name: string; args: Record<string, unknown>; options: CallOptions }[] = [];
  const target: CallTarget = {
    config,
    call(name, args, options) {
      sent.push({ name, args, options });
      try {
        return Promise.resolve(answer(name, args));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
  return { target, sent };
}

/** A call as resolve leaves it: its tool and target found. */
export function resolvedCall(options: {
  session?: Partial<CallSession>;
  request?: Partial<CallRequest>;
  id?: typeof TOOL_ID;
  args?: Record<string, unknown>;
  tool?: Tool;
  target?: CallTarget;
}): ToolCall {
  const config = validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x" } } } } });
  const session: CallSession = { config, offer: { find: () => Promise.reject(new Error("No offer in this test")) }, ...options.session };
  return {
    session,
    request: { signal: new AbortController().signal, ...options.request },
    id: options.id ?? TOOL_ID,
    args: options.args ?? {},
    tool: options.tool ?? { name: "echo", inputSchema: { type: "object" } },
    target: options.target ?? stubTarget(serverOf()).target,
    note: {},
  };
}

/** A `next` that answers `result` and keeps the calls it got (as they were when it got them). */
export function stubNext(result: CallToolResult = { content: [{ type: "text", text: "done" }] }) {
  const got: ToolCall[] = [];
  const next: Next = (call) => {
    got.push({ ...call, args: call.args });
    return Promise.resolve(Success(result));
  };
  return { next, got };
}
