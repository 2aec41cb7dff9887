/** What a tool call goes to once its tool is found: a server as its toolbox sees it, on one server session. */
import type { CallToolResult } from "../protocol/sdk.ts";
import type { ServerConfig } from "../config/index.ts";
import type { CallOptions } from "../downstream/session-options.ts";

/** A tool's server as its toolbox sees it, bound to the server session the call goes to. */
export interface CallTarget {
  /** The server's entry in the toolbox: confirm, validateArguments, call limits, secrets. */
  readonly config: ServerConfig;
  /** Calls a tool of the server with the toolbox's call limits. */
  call(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult>;
}
