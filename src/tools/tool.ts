/** The one shape every meta-tool has (the spec's ADR 004): schema next to the tool, results as values. */
import type * as z from "zod";
import type { CallToolResult } from "../protocol/sdk.ts";
import type { KeptResults } from "./result-store.ts";
import type { CallRequest, CallSession } from "./pipeline/step.ts";
import type { SessionSearch } from "./session-search.ts";
import type { SessionOffer } from "../toolboxes/session-offer.ts";

export { Failure, type Result, type RpcError, Success } from "./pipeline/values.ts";
import type { Result } from "./pipeline/values.ts";
import type { Span } from "../telemetry/index.ts";

/** What a meta-tool's session has: what its tool calls are given (see pipeline/step.ts), and more. */
export interface ToolSession extends CallSession {
  readonly offer: SessionOffer;
  /** The session's results cut to maxResultTokens, read on with read_result; none: results are not cut. */
  readonly results?: KeptResults;
  /** The session's tool search (with `"toolSearch": true`): what it found, use_tool opens. */
  readonly search?: SessionSearch;
  /** The session's skill files, read as resources/read reads them (see read-skill.ts). */
  readonly skills?: SkillFileReader;
}

/** What a meta-tool is given: its session, and the client's request it serves. */
export interface ToolContext {
  readonly session: ToolSession;
  readonly request: CallRequest;
}

/** A file of a skill of the session's offer, by its URI as a client sees it (skill://<toolbox>/<server>/…). */
export interface SkillFileReader {
  /**
   * Throws (an error with a code) for a URI that is not a file of an offered skill, withheld, or
   * whose bytes do not verify. Its request to the server is a CLIENT span under `span` (telemetry on).
   */
  readFile(uri: string, span?: Span): Promise<{
    contents: { uri: string; mimeType?: string; text?: string; blob?: string }[];
    /** The digest and size the bytes matched; none for a file of a "dynamic" skill. */
    verified?: { digest: string; size: number };
  }>;
}

export interface Tool<TSchema extends z.ZodType, TOut> {
  name: string;
  description: string;
  schema: TSchema;
  /** Prefix of the message for input that fails the schema, e.g. "Invalid parameters". */
  invalidInputPrefix: string;
  /** Text after the issues of input that fails the schema, e.g. an example of the right call. */
  invalidInputHint?(input: unknown, error: z.ZodError): string;
  /**
   * The schema's answer for the common well-formed input, checked in plain script (issue 42: zod
   * cost 8% of a relayed echo); undefined sends the input to the schema, which also words errors.
   * It must accept nothing the schema refuses (tests/tools/use-tool-input.test.ts).
   */
  plainInput?(input: unknown): z.output<TSchema> | undefined;
  run(input: z.output<TSchema>, ctx: ToolContext): Promise<Result<TOut>>;
  /** How a successful value reaches the client. */
  present(value: TOut): CallToolResult;
}

// deno-lint-ignore no-explicit-any
export type AnyTool = Tool<z.ZodType, any>;

export function textResult(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: "text", text }], isError: true } : { content: [{ type: "text", text }] };
}
