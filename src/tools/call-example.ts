/**
 * The one-line use_tool call a malformed invocation should have been, built from what the model
 * sent: `{"tool": "dev/filesystem/read_file", "path": "a"}` gets
 * `{"tool": {"toolbox": "dev", "server": "filesystem", "name": "read_file"}, "arguments": {"path": "a"}}`.
 */
import type * as z from "zod";

/** A value longer than this (as JSON) is shown as "…": the example is about the shape. */
const MAX_VALUE_CHARS = 80;
/** `toolbox/server/name` as a model sometimes writes it. */
const SLASHED = /^([^/]+)\/([^/]+)\/([^/]+)$/;

/** "\nExample: {...}" when the call's shape is wrong (not just one bad name); empty otherwise. */
export function exampleForShape(input: unknown, error: z.ZodError): string {
  const shapeWrong = error.issues.some((issue) => issue.code === "unrecognized_keys" || issue.path.length <= 1);
  return shapeWrong ? `\nExample: ${exampleCall(input)}` : "";
}

export function exampleCall(input: unknown): string {
  const sent = isObject(input) ? input : {};
  const id = identifier(sent.tool);
  const tool = `{"toolbox": ${JSON.stringify(id.toolbox)}, "server": ${JSON.stringify(id.server)}, "name": ${JSON.stringify(id.name)}}`;
  return `{"tool": ${tool}, "arguments": ${argumentsOf(sent)}}`;
}

function identifier(tool: unknown): { toolbox: string; server: string; name: string } {
  const fallback = { toolbox: "<toolbox>", server: "<server>", name: "<name>" };
  if (typeof tool === "string") {
    const slashed = SLASHED.exec(tool);
    if (slashed) return { toolbox: slashed[1], server: slashed[2], name: slashed[3] };
    return { ...fallback, name: tool.trim() || fallback.name };
  }
  if (!isObject(tool)) return fallback;
  const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : undefined);
  return {
    toolbox: text(tool.toolbox) ?? text(tool.toolbox_name) ?? fallback.toolbox,
    server: text(tool.server) ?? text(tool.source_server) ?? fallback.server,
    // The old {toolbox, server, tool} form names the tool `tool`.
    name: text(tool.name) ?? text(tool.tool) ?? text(tool.tool_name) ?? fallback.name,
  };
}

/** The arguments the model gave, or the keys it put beside `tool`, or a JSON string of them. */
function argumentsOf(sent: Record<string, unknown>): string {
  let args: Record<string, unknown> = {};
  if (isObject(sent.arguments)) args = sent.arguments;
  else if (typeof sent.arguments === "string") args = parseObject(sent.arguments) ?? {};
  else args = Object.fromEntries(Object.entries(sent).filter(([key]) => key !== "tool" && key !== "arguments"));
  const entries = Object.entries(args).map(([key, value]) => `${JSON.stringify(key)}: ${shortJson(value)}`);
  return entries.length === 0 ? "{}" : `{${entries.join(", ")}}`;
}

function shortJson(value: unknown): string {
  const json = JSON.stringify(value) ?? "null";
  return json.length <= MAX_VALUE_CHARS ? json : '"…"';
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
