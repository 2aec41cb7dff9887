/**
 * A client's request as its SERVER span shows it (issue 50, from a security review): what a client
 * chooses freely is bounded before it names a span or a metric series, since every client shares
 * the workbench's memory and its 2000 series. A method outside MCP's is `_OTHER`; a tool name the
 * workbench does not offer is `_OTHER`; a prompt name is cut; the protocol revision is one the
 * workbench speaks, or none. The request itself is never changed.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/sdk.ts";
import { DISCOVER_METHOD, MODERN_VERSION } from "../protocol/wire.ts";
import { CATALOG_METHODS } from "./catalog/catalog-requests.ts";
import { cut, type McpRequest } from "../telemetry/index.ts";

/** What stands for a value a client chose outside the known ones (the OpenTelemetry convention's word). */
export const OTHER = "_OTHER";

/** The longest prompt name a span shows (a catalog name is `<toolbox>__<server>__<prompt>`). */
const MAX_PROMPT_NAME = 200;

/** The methods the workbench answers: its own, and the catalog's (prompts, resources, completions, skills). */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  DISCOVER_METHOD,
  "tools/list",
  "tools/call",
  "logging/setLevel",
  "subscriptions/listen",
  "tasks/get",
  "tasks/result",
  "tasks/list",
  "tasks/cancel",
  ...CATALOG_METHODS,
]);

const KNOWN_VERSIONS = new Set<string>([...SUPPORTED_PROTOCOL_VERSIONS, MODERN_VERSION]);

/** A protocol revision a client claims, if the workbench speaks it. */
export function knownVersion(claimed: unknown): string | undefined {
  return typeof claimed === "string" && KNOWN_VERSIONS.has(claimed) ? claimed : undefined;
}

/** The request as its span is made from: `knownTool` says which tool names the session offers. */
export function spanRequest(message: McpRequest, knownTool: (name: string) => boolean): McpRequest {
  const method = KNOWN_METHODS.has(message.method) ? message.method : OTHER;
  const params = record(message.params);
  if (method === message.method && method !== "tools/call" && method !== "prompts/get" && method !== "completion/complete") {
    return message;
  }
  // Only what the span reads: the parent's context, the target, a resource's URI.
  const meta = params?._meta;
  if (method === "tools/call") {
    const name = typeof params?.name === "string" && knownTool(params.name) ? params.name : OTHER;
    return { method, id: message.id, params: { _meta: meta, name } };
  }
  if (method === "prompts/get") return { method, id: message.id, params: { _meta: meta, name: cutName(params?.name) } };
  if (method === "completion/complete") {
    const ref = record(params?.ref);
    const name = ref?.type === "ref/prompt" ? cutName(ref.name) : undefined;
    return { method, id: message.id, params: { _meta: meta, ...(name !== undefined && { ref: { type: "ref/prompt", name } }) } };
  }
  return { method, id: message.id, params: { _meta: meta } };
}

function cutName(value: unknown): string | undefined {
  return typeof value === "string" ? cut(value, MAX_PROMPT_NAME) : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}
