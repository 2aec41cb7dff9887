/**
 * The words of MCP 2026-07-28 that both sides of the workbench use: the per-request `_meta`
 * envelope, result types, input requests and the version error. 2025-11-25 is the legacy era:
 * an `initialize` handshake and a session.
 */

export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSION = "2025-11-25";
export type Era = typeof MODERN_VERSION | typeof LEGACY_VERSION;

export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
export const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
export const LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel";
export const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

/** JSON-RPC error for a request whose protocol version the peer does not speak. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** One request a server needs answered before it can finish a call, keyed in `inputRequests`. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** A result that asks for input: answer `inputRequests` and retry with `inputResponses` and `requestState`. */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
  [key: string]: unknown;
}

/**
 * What a 2026-07-28 client's retry of use_tool carries for the server behind it, passed on as it
 * came; and whether that server's input_required may go back to the client as it is (the client
 * speaks 2026-07-28) rather than be asked of it the 2025 way.
 */
export interface CallInput {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  passInputRequired: boolean;
}

/** The server→client requests that 2026-07-28 carries inside results instead. */
export const INPUT_METHODS: ReadonlySet<string> = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The version a request's `_meta` claims, if it carries the 2026-07-28 envelope. */
export function claimedVersion(params: unknown): string | undefined {
  const meta = isObject(params) ? params._meta : undefined;
  const version = isObject(meta) ? meta[PROTOCOL_VERSION_KEY] : undefined;
  return typeof version === "string" ? version : undefined;
}

export function isInputRequired(result: unknown): result is InputRequiredResult {
  return isObject(result) && result.resultType === "input_required";
}

/** The method results that 2026-07-28 makes cacheable: they carry `ttlMs` and `cacheScope`. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "server/discover",
]);

/** The 2026-07-28 handshake: what the server speaks and can do, asked on any request's envelope. */
export const DISCOVER_METHOD = "server/discover";
/** Outgoing `_meta` key of our own: hand an `input_required` result back as it is (stripped before sending). */
export const PASS_INPUT_REQUIRED_KEY = "workbench/passInputRequired";

/** What `server/discover` answers. */
export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  instructions?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export function isDiscoverResult(result: unknown): result is DiscoverResult {
  return isObject(result) && Array.isArray(result.supportedVersions) && isObject(result.capabilities);
}

/** Capabilities as 2026-07-28 has them: resources without `subscribe` (it has subscriptions/listen). */
export function withoutResourceSubscribe<T extends { resources?: object }>(capabilities: T): T {
  const resources = capabilities.resources as Json | undefined;
  if (!resources || !("subscribe" in resources)) return capabilities;
  const { subscribe: _, ...kept } = resources;
  return { ...capabilities, resources: kept };
}

/** The client capability keys 2026-07-28 knows; the rest (tasks...) are 2025-only. */
const MODERN_CLIENT_CAPABILITIES = ["experimental", "sampling", "elicitation", "roots", "extensions"];

/** A client's declared capabilities, reduced to the keys 2026-07-28 has. */
export function modernClientCapabilities(capabilities: unknown): Json {
  if (!isObject(capabilities)) return {};
  return Object.fromEntries(
    MODERN_CLIENT_CAPABILITIES.filter((key) => capabilities[key] !== undefined).map((key) => [key, capabilities[key]]),
  );
}

export interface Envelope {
  clientInfo: { name: string; version: string };
  clientCapabilities: Json;
  logLevel?: string;
}

/** `params` with the 2026-07-28 envelope in its `_meta`; the keys already there (progressToken...) stay. */
export function withEnvelope(params: unknown, envelope: Envelope): Json {
  const base = isObject(params) ? params : {};
  const meta = isObject(base._meta) ? base._meta : {};
  return {
    ...base,
    _meta: {
      ...meta,
      [PROTOCOL_VERSION_KEY]: MODERN_VERSION,
      [CLIENT_INFO_KEY]: envelope.clientInfo,
      [CLIENT_CAPABILITIES_KEY]: envelope.clientCapabilities,
      ...(envelope.logLevel !== undefined && { [LOG_LEVEL_KEY]: envelope.logLevel }),
    },
  };
}
