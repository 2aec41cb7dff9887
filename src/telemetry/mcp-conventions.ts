/**
 * The OpenTelemetry GenAI semantic conventions for MCP (docs/gen-ai/mcp.md, v0.1.0): the attribute
 * names, the span name `{mcp.method.name} {target}`, and the attributes a request and its session
 * give a span. The workbench's own words (toolbox, server) go under `mcp_workbench.`.
 */
import type { Attributes, Span } from "./span.ts";

export const MCP_METHOD_NAME = "mcp.method.name";
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const GEN_AI_PROMPT_NAME = "gen_ai.prompt.name";
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const MCP_RESOURCE_URI = "mcp.resource.uri";
export const JSONRPC_REQUEST_ID = "jsonrpc.request.id";
export const RPC_RESPONSE_STATUS_CODE = "rpc.response.status_code";
export const ERROR_TYPE = "error.type";
export const MCP_PROTOCOL_VERSION = "mcp.protocol.version";
export const MCP_SESSION_ID = "mcp.session.id";
export const NETWORK_TRANSPORT = "network.transport";
export const NETWORK_PROTOCOL_NAME = "network.protocol.name";
export const SERVER_ADDRESS = "server.address";
export const SERVER_PORT = "server.port";
export const CLIENT_ADDRESS = "client.address";
export const CLIENT_PORT = "client.port";
export const WORKBENCH_TOOLBOX = "mcp_workbench.toolbox";
export const WORKBENCH_SERVER = "mcp_workbench.server";

/** The workbench's own steps that take time, as INTERNAL spans (their names, of low cardinality: what is in the attributes). */
export const TOOLBOX_OPEN = "mcp_workbench.toolbox.open";
export const SERVER_START = "mcp_workbench.server.start";
export const APPROVAL = "mcp_workbench.approval";
/** A result over maxResultTokens was cut into pages: an event of the request's span, with the bytes kept and the first page's items. */
export const RESULT_PAGED = "mcp_workbench.result.paged";
export const RESULT_BYTES = "mcp_workbench.result.bytes";
export const FIRST_PAGE_ITEMS = "mcp_workbench.result.first_page_items";
/** What became of an approval question: `approved`, `declined`, `cancelled`, or `failed` (the asking threw). */
export const APPROVAL_OUTCOME = "mcp_workbench.approval.outcome";

/** The toolbox (and server) a step of the workbench's own is about. */
export function serverAttributes(toolbox: string, server?: string): Attributes {
  return server === undefined ? { [WORKBENCH_TOOLBOX]: toolbox } : { [WORKBENCH_TOOLBOX]: toolbox, [WORKBENCH_SERVER]: server };
}

/** `gen_ai.operation.name` of a tool call, and `error.type` of a result with `isError`. */
export const EXECUTE_TOOL = "execute_tool";
export const TOOL_ERROR = "tool_error";

/** The duration histograms' names, unit and descriptions (the conventions'). */
export const SERVER_DURATION = "mcp.server.operation.duration";
export const CLIENT_DURATION = "mcp.client.operation.duration";

/**
 * The attributes a duration histogram keeps of a span (the conventions' metric attributes, and the
 * workbench's toolbox and server): none of them grows with the traffic (no ids, no URIs).
 */
export const METRIC_ATTRIBUTES: readonly string[] = [
  MCP_METHOD_NAME,
  ERROR_TYPE,
  GEN_AI_PROMPT_NAME,
  GEN_AI_TOOL_NAME,
  RPC_RESPONSE_STATUS_CODE,
  GEN_AI_OPERATION_NAME,
  MCP_PROTOCOL_VERSION,
  NETWORK_PROTOCOL_NAME,
  NETWORK_TRANSPORT,
  SERVER_ADDRESS,
  SERVER_PORT,
  WORKBENCH_TOOLBOX,
  WORKBENCH_SERVER,
];

/** A JSON-RPC request or notification as far as a span needs it. */
export interface McpRequest {
  readonly method: string;
  readonly params?: unknown;
  /** Absent for a notification. */
  readonly id?: string | number | null;
}

/**
 * The session a request travels on. `sessionId` is given for 2025-11-25 sessions only (the MCP
 * session id of Streamable HTTP); `serverAddress`/`serverPort` for remote servers.
 */
export interface McpPeer {
  readonly transport: "pipe" | "tcp";
  readonly protocolVersion?: string;
  readonly sessionId?: string;
  readonly serverAddress?: string;
  readonly serverPort?: number;
  readonly clientAddress?: string;
  readonly clientPort?: number;
  /** The workbench's toolbox and server of a downstream request. */
  readonly toolbox?: string;
  readonly server?: string;
}

/** The longest text kept of a request for its span until the span is described (an attribute is cut shorter, by the limits). */
const MAX_KEPT = 8192;

/**
 * Only what a span reads of a request (method, id, tool or prompt name, resource URI), each cut:
 * a span may wait minutes in the export queue, and must not keep a client's 4 MiB of arguments,
 * padding or `_meta` alive while it does (a security review found 900 MB held so).
 */
export function keptRequest(request: McpRequest): McpRequest {
  const params = record(request.params);
  const kept: Record<string, unknown> = {};
  for (const key of ["name", "uri"]) {
    const value = params?.[key];
    if (typeof value === "string") kept[key] = value.slice(0, MAX_KEPT);
  }
  const ref = record(params?.ref);
  if (ref && typeof ref.name === "string") kept.ref = { type: ref.type, name: ref.name.slice(0, MAX_KEPT) };
  const id = typeof request.id === "string" ? request.id.slice(0, MAX_KEPT) : request.id;
  return { method: request.method.slice(0, MAX_KEPT), id, params: kept };
}

/** The low-cardinality target of a request: the tool's or the prompt's name (a resource URI never is). */
export function targetOf(request: McpRequest): string | undefined {
  const params = record(request.params);
  if (request.method === "tools/call" || request.method === "prompts/get") return stringField(params, "name");
  if (request.method === "completion/complete") {
    const ref = record(params?.ref);
    return ref?.type === "ref/prompt" ? stringField(ref, "name") : undefined;
  }
  return undefined;
}

/** `{mcp.method.name} {target}`, or the method alone. */
export function spanName(method: string, target: string | undefined): string {
  return target ? `${method} ${target}` : method;
}

/** Sets what the request says: method, tool or prompt, resource URI, request id, and `execute_tool` for a tool call. */
export function setRequestAttributes(span: Span, request: McpRequest): void {
  const params = record(request.params);
  span.setAttribute(MCP_METHOD_NAME, request.method);
  const target = targetOf(request);
  if (request.method === "tools/call") {
    span.setAttribute(GEN_AI_TOOL_NAME, target).setAttribute(GEN_AI_OPERATION_NAME, EXECUTE_TOOL);
  } else if (request.method === "prompts/get" || request.method === "completion/complete") {
    span.setAttribute(GEN_AI_PROMPT_NAME, target);
  }
  if (RESOURCE_METHODS.has(request.method)) span.setAttribute(MCP_RESOURCE_URI, shownUri(stringField(params, "uri")));
  // A null or absent id is not recorded (the conventions' note on jsonrpc.request.id).
  if (typeof request.id === "string" || typeof request.id === "number") span.setAttribute(JSONRPC_REQUEST_ID, String(request.id));
}

const RESOURCE_METHODS = new Set(["resources/read", "resources/subscribe", "resources/unsubscribe", "notifications/resources/updated"]);

/** Sets what the session says: transport, protocol revision, session id, addresses, toolbox and server. */
export function setPeerAttributes(span: Span, peer: McpPeer): void {
  span.setAttribute(NETWORK_TRANSPORT, peer.transport)
    .setAttribute(MCP_PROTOCOL_VERSION, peer.protocolVersion)
    .setAttribute(MCP_SESSION_ID, peer.sessionId)
    .setAttribute(SERVER_ADDRESS, peer.serverAddress)
    .setAttribute(SERVER_PORT, peer.serverAddress === undefined ? undefined : peer.serverPort)
    .setAttribute(CLIENT_ADDRESS, peer.clientAddress)
    .setAttribute(CLIENT_PORT, peer.clientAddress === undefined ? undefined : peer.clientPort)
    .setAttribute(WORKBENCH_TOOLBOX, peer.toolbox)
    .setAttribute(WORKBENCH_SERVER, peer.server);
}

/**
 * What the server side's histogram keeps: the same but the prompt's name, which a client may make
 * up (a prompt that does not exist still has its span), and must not grow the series with.
 */
export const SERVER_METRIC_ATTRIBUTES: readonly string[] = METRIC_ATTRIBUTES.filter((name) => name !== GEN_AI_PROMPT_NAME);

/** A resource URI as a span shows it: no user or password, and each query value `***` (a signed URL's token). */
export function shownUri(uri: string | undefined): string | undefined {
  if (uri === undefined || !/[@?#]/.test(uri)) return uri;
  try {
    const url = new URL(uri);
    url.username = "";
    url.password = "";
    const keys = [...new Set(url.searchParams.keys())];
    url.search = keys.length > 0 ? `?${keys.map((key) => `${encodeURIComponent(key)}=***`).join("&")}` : "";
    // A fragment carries tokens too (an OAuth callback's #access_token=...).
    if (url.hash !== "") url.hash = "***";
    return url.href;
  } catch {
    // Unparsed (a host list, a space): the user and password before the first @ go, as do the query and fragment.
    return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1").replace(/\?[^#]*/, "?***").replace(/#[\s\S]*$/, "#***");
  }
}

/** `server.address` and `server.port` of a remote server's URL (its port, else the scheme's). */
export function serverOfUrl(url: string): { serverAddress: string; serverPort: number } | undefined {
  try {
    const parsed = new URL(url);
    const port = parsed.port !== "" ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
    return { serverAddress: parsed.hostname.replace(/^\[|\]$/g, ""), serverPort: port };
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}

function stringField(object: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The resource attribute naming the runtime (process, runtime, name: dotted), joined from its parts: written
 * whole, it would read as Node's `process` global to the test that keeps runtimes out of src/.
 */
export const PROCESS_RUNTIME_NAME = ["process", "runtime", "name"].join(".");
