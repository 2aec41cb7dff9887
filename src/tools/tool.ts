/** The one shape every meta-tool has (the spec's ADR 004): schema next to the tool, results as values. */
import type * as z from "zod";
import type { CallToolResult, Progress, RequestId } from "../protocol/sdk.ts";
import type { WorkbenchConfig } from "../config/index.ts";
import type { ConfiguredServer, ToolboxRegistry } from "../toolboxes/registry.ts";
import type { CallInput } from "../protocol/wire.ts";
import type { Upstream } from "../protocol/upstream.ts";
import type { ResultStore } from "./result-store.ts";
import type { SessionApprovals } from "../trust/approvals.ts";
import type { AuditLog } from "../trust/audit-log.ts";
import type { SearchCatalog } from "./search-catalog.ts";

/** A JSON-RPC error instead of a tool result: what a server's -32042 must stay for a client to act on it. */
export interface RpcError {
  code: number;
  data?: unknown;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: string; rpc?: RpcError };

export const Success = <T>(value: T): Result<T> => ({ ok: true, value });
export const Failure = <T = never>(error: string, rpc?: RpcError): Result<T> => ({ ok: false, error, ...(rpc && { rpc }) });

export interface ToolContext {
  config: WorkbenchConfig;
  /** The session's toolboxes (each session opens its own). */
  registry: ToolboxRegistry;
  /** The session the call works for: a server's questions and log messages during it go there. */
  upstream?: Upstream;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /** The id of the client's tools/call request, for requests a server makes while serving it. */
  requestId?: RequestId;
  /** Set when the client asked for progress (a progressToken): reports progress to it. */
  onProgress?: (progress: Progress) => void;
  /** The client's answers to a server's input requests (2026-07-28), for the server's tool. */
  input?: CallInput;
  /** True when the client declared URL elicitation: it opens the URLs a server's -32042 names itself. */
  clientOpensUrls?: () => boolean;
  /**
   * True when the client's requests stand alone (2026-07-28 over HTTP): one may land where its
   * toolbox was never opened (another replica, a session that expired), so use_tool opens it.
   */
  opensToolboxes?: () => boolean;
  /** A downstream tool's result, for the URIs it names (see src/upstream/catalog/learn-uris.ts). */
  onToolResult?: (owner: ConfiguredServer, result: CallToolResult) => void;
  /** The session's results cut to maxResultTokens, read on with read_result; none: results are not cut. */
  results?: ResultStore;
  /** The session's own id (one per client connection, or per `call` subcommand), for the audit log. */
  sessionId?: string;
  /** The client's name where one is known (serving over HTTP), for the audit log. */
  clientName?: string;
  /** What the user approved in this session ("for this session"); without it, each call is asked. */
  approvals?: SessionApprovals;
  /** Where each call is recorded, when the configuration has an `auditLog`. */
  audit?: AuditLog;
  /** The session's tool search (with `"toolSearch": true`): what it found, use_tool opens. */
  catalog?: SearchCatalog;
}

export interface Tool<TSchema extends z.ZodType, TOut> {
  name: string;
  description: string;
  schema: TSchema;
  /** Prefix of the message for input that fails the schema, e.g. "Invalid parameters". */
  invalidInputPrefix: string;
  /** Text after the issues of input that fails the schema, e.g. an example of the right call. */
  invalidInputHint?(input: unknown, error: z.ZodError): string;
  run(input: z.output<TSchema>, ctx: ToolContext): Promise<Result<TOut>>;
  /** How a successful value reaches the client. */
  present(value: TOut): CallToolResult;
}

// deno-lint-ignore no-explicit-any
export type AnyTool = Tool<z.ZodType, any>;

export function textResult(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: "text", text }], isError: true } : { content: [{ type: "text", text }] };
}
