/**
 * What a parsed line is, by JSON-RPC 2.0 and MCP's framing of it, and what to answer when it is
 * nothing we may act on. The SDK would drop such a message with a log line that quotes it whole
 * (and answer nothing); JSON-RPC wants an error the peer can see, and the quote may hold secrets.
 */
import type { JSONRPCMessage, RequestId } from "../protocol/sdk.ts";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

export type Checked =
  | { kind: "request"; message: JSONRPCMessage; id: RequestId; method: string }
  | { kind: "notification"; message: JSONRPCMessage; method: string }
  | { kind: "response"; message: JSONRPCMessage; id: RequestId }
  | Refused;

/**
 * A message we cannot act on. `id` is the request's id when it could be read (JSON-RPC: null
 * when it could not); `answer` is false for what must not be answered (notifications, responses).
 */
export interface Refused {
  kind: "refused";
  code: number;
  message: string;
  id: RequestId | null;
  answer: boolean;
  /** The method, when the message named one as a string: for logs. */
  method?: string;
  /** Nested deeper than any parser here may walk: from a server, the connection is not to be trusted. */
  tooDeep?: boolean;
}

/**
 * An id we may answer with: a string, or an integer that survives JSON's round trip exactly
 * (9007199254740993 parses as ...992, 1e400 as Infinity: answering those would name a request
 * the client never sent). Fractions and null are refused, as MCP requires.
 */
export function isUsableId(id: unknown): id is RequestId {
  return typeof id === "string" || Number.isSafeInteger(id);
}

export function checkMessage(value: unknown): Checked {
  if (Array.isArray(value)) return refuse(INVALID_REQUEST, "Invalid Request: batches are not supported; send one message per line");
  if (typeof value !== "object" || value === null) return refuse(INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
  const message = value as Record<string, unknown>;
  const id = isUsableId(message.id) ? message.id : null;
  const method = typeof message.method === "string" ? message.method : undefined;
  // JSON-RPC answers an invalid request, never a notification or a response.
  const shape = method !== undefined && !("id" in message)
    ? "notification"
    : !("method" in message) && ("result" in message || "error" in message)
    ? "response"
    : "request";
  const refused = (code: number, text: string): Refused => ({
    ...refuse(code, text, id, shape === "request"),
    ...(method !== undefined && { method }),
  });

  if (message.jsonrpc !== "2.0") return refused(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"');
  if ("id" in message && id === null) return refused(INVALID_REQUEST, "Invalid Request: id must be a string or a safe integer");
  if (shape === "response") {
    const problem = "result" in message ? resultProblem(message.result) : errorProblem(message.error);
    if (problem) return refused(INVALID_REQUEST, `Invalid Request: ${problem}`);
    return { kind: "response", message: value as JSONRPCMessage, id: id! };
  }
  if (method === undefined) {
    const text = "method" in message
      ? "Invalid Request: method must be a string"
      : "Invalid Request: a message needs a method, or an id with a result or an error";
    return refused(INVALID_REQUEST, text);
  }
  const problem = paramsProblem(message.params);
  if (problem) return refused(INVALID_PARAMS, `Invalid params: ${problem}`);
  const checked = value as JSONRPCMessage;
  return shape === "notification"
    ? { kind: "notification", message: checked, method }
    : { kind: "request", message: checked, id: id!, method };
}

/** Refuses a message whose id cannot be trusted or is taken: answered with id null. */
export function refuse(code: number, message: string, id: RequestId | null = null, answer = true): Refused {
  return { kind: "refused", code, message, id, answer };
}

/** MCP's params are an object; `_meta.progressToken` is a string or an integer. */
function paramsProblem(params: unknown): string | undefined {
  if (params === undefined) return undefined;
  if (!isPlainObject(params)) return "params must be an object";
  if (!("_meta" in params)) return undefined;
  if (!isPlainObject(params._meta)) return "params._meta must be an object";
  const token = params._meta.progressToken;
  if (token !== undefined && !isUsableId(token)) return "params._meta.progressToken must be a string or an integer";
  return undefined;
}

function resultProblem(result: unknown): string | undefined {
  return isPlainObject(result) ? undefined : "result must be an object";
}

function errorProblem(error: unknown): string | undefined {
  if (!isPlainObject(error)) return "error must be an object";
  if (!Number.isSafeInteger(error.code) || typeof error.message !== "string") {
    return "error needs an integer code and a string message";
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The same message refused for another reason (too deep, id in use), keeping what was read of it. */
export function refuseChecked(checked: Checked, code: number, message: string, id = idOf(checked)): Refused {
  const answer = checked.kind === "request" || (checked.kind === "refused" && checked.answer);
  const method = "method" in checked ? checked.method : undefined;
  return { ...refuse(code, message, id, answer), ...(method !== undefined && { method }) };
}

function idOf(checked: Checked): RequestId | null {
  return checked.kind === "notification" ? null : checked.id;
}
