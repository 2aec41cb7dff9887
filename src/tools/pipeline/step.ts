/**
 * The shape every step of a tool call has (see pipeline.ts): `(next) => (call) => result`, given the
 * rest of the pipeline once, when composed, so that a call passes each step in one function. A call is
 * split in two: what its session has (the same for every call of the session: configuration,
 * offer, what it keeps, who it works for, the client to ask, the audit log) and what the call
 * alone has (the tool's identifier, its arguments, the client's request it serves). A step reads
 * both, may fill in what it found (resolve sets `target` and `tool`), and hands the call on, or
 * stops it with the failure the client sees. A new concern is one step and one line in the list.
 */
import type { CallToolResult, Progress, RequestId, Tool as McpTool } from "../../protocol/sdk.ts";
import type { CallInput } from "../../protocol/wire.ts";
import type { Upstream } from "../../protocol/upstream.ts";
import type { WorkbenchConfig } from "../../config/index.ts";
import type { CallCancel } from "../../downstream/call-cancel.ts";
import type { CallTarget, ToolFinder } from "../../toolboxes/session-offer.ts";
import type { AuditLog } from "../../trust/audit-log.ts";
import type { KeptApprovals } from "../../trust/approvals.ts";
import type { Span, Telemetry } from "../../telemetry/index.ts";
import type { SecretAsking } from "../../auth/connect-flow.ts";
import { type CallNote, Failure, type Result, type ToolId } from "./values.ts";

/** What a session gives each of its calls; made once per session. */
export interface CallSession {
  /** The configuration in force (a getter when it applies live: read at each use). */
  readonly config: WorkbenchConfig;
  /** What the session may see: where a tool is found (the session's offer). */
  readonly offer: ToolFinder;
  /** Who the calls work for: the session's own id, and the client's name where one is known (HTTP). */
  readonly sessionId?: string;
  readonly clientName?: string;
  /** The client the session serves: questions and log messages of a call go there. */
  readonly upstream?: Upstream;
  /** What the user approved in this session; without it, each call is asked. */
  readonly approvals?: KeptApprovals;
  /** Where each call is recorded, when the configuration has an `auditLog`. */
  readonly audit?: AuditLog;
  /** With no client in front (the `call` command in a terminal): asks the user, y/N. */
  readonly askUser?: (question: string) => Promise<boolean>;
  /** True when the client declared URL elicitation: it opens the URLs a server's -32042 names itself. */
  readonly clientOpensUrls?: () => boolean;
  /**
   * True when the client's requests stand alone (2026-07-28 over HTTP): one may land where its
   * toolbox was never opened (another replica, a session that expired), so the call opens it.
   */
  readonly opensToolboxes?: () => boolean;
  /**
   * The session's tool search: the toolboxes it answered with (a call opens them itself), and
   * what it learns of a call that succeeded after it (see learn.ts).
   */
  readonly search?: { readonly found: ReadonlySet<string>; chose?(id: ToolId): void };
  /** A downstream tool's result, for the URIs it names (see src/upstream/catalog/learn-uris.ts). */
  readonly onToolResult?: (id: ToolId, result: CallToolResult) => void;
  /** Spans and durations (issue 50): a CLIENT span per call (trace.ts); off or absent, nothing. */
  readonly telemetry?: Telemetry;
  /** A member served over HTTP may provide a secret a server lacks, on a page (connect.ts); none over stdio. */
  readonly connect?: SecretAsking;
}

/** What the client's request that a call serves brings: its id, cancellation, progress, answers. */
export interface CallRequest {
  /** The id of the client's tools/call request, for the questions a call asks while serving it. */
  readonly id?: RequestId;
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  /** The client's cancellation as the intake made it: watched without an AbortSignal (issue 42). */
  readonly cancel?: CallCancel;
  /** Set when the client asked for progress (a progressToken): reports progress to it. */
  readonly onProgress?: (progress: Progress) => void;
  /** The client's answers to a server's input requests (2026-07-28): a retry's requestState. */
  readonly input?: CallInput;
  /** The SERVER span of the client's request (telemetry on): the parent of the call's CLIENT span. */
  readonly span?: Span;
}

/** One tool call on its way through the steps. */
export interface ToolCall {
  readonly session: CallSession;
  readonly request: CallRequest;
  readonly id: ToolId;
  /** The arguments to send: after a question, the copy the user was shown. */
  args: Record<string, unknown>;
  /** Found by resolve: the server as its toolbox sees it, and the tool's definition. */
  target?: CallTarget;
  tool?: McpTool;
  /** Set by approve: the user was asked, and approved. */
  asked?: boolean;
  /** Set by connect: the member just provided a secret of the server, whose toolbox may have failed to open without it. */
  provided?: boolean;
  /** Set by trace: the call's CLIENT span, and its context for the request's `_meta` (traceparent...). */
  span?: Span;
  meta?: Readonly<Record<string, string>>;
  /** What a step before the call decided, where the result alone does not tell (for the record). */
  readonly note: CallNote;
}

export type CallResult = Promise<Result<CallToolResult>>;
export type Next = (call: ToolCall) => CallResult;
/** A step is given the rest of the pipeline once, when composed, and is then the call's way on (one function a step). */
export type Step = (next: Next) => Next;

/** The steps as one function, chained once: a call makes no closure of its own on the way. */
export function compose(steps: readonly Step[]): Next {
  const end: Next = () => Promise.resolve(Failure("Internal error: no step of the pipeline sent the call"));
  return steps.reduceRight<Next>((next, step) => step(next), end);
}

/** A call's first form, before any step. */
export function newCall(session: CallSession, request: CallRequest, id: ToolId, args: Record<string, unknown>): ToolCall {
  return { session, request, id, args, note: {} };
}

export type { CallNote, Result, ToolId };
