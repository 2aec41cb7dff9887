/**
 * How a connection reaches its server: a child process on stdio or a URL. The connection (SDK
 * Client, tools/call lane, timeouts, lost and restart) does not care which.
 */
import type { JSONRPCMessage, RequestId, Transport } from "../../protocol/sdk.ts";
import type { ServerConfig } from "../../config/index.ts";
import type { Platform } from "../../platform/types.ts";
import type { FlowGate } from "../../transport/flow-gate.ts";
import type { SignalSource } from "../../transport/write-queue.ts";
import type { CommandSearch } from "./command-path.ts";
import type { Redactor } from "../../address/redact.ts";

/**
 * Past this many bytes on their way to a server (written to its stdin, or sent in POSTs it has not
 * answered yet), tool calls wait their turn in its room (issue 38: on every path and with every
 * kind of link), and the link host's sendGate, if any, is held.
 */
export const SERVER_ROOM_BYTES = 16 * 1024 * 1024;

/** The server a link is for: the first toolbox and name that list it, and its settings. */
export interface ServerTarget {
  toolbox: string;
  server: string;
  config: ServerConfig;
  /** The client a process of its own runs for (serving over HTTP), named in its log lines. */
  client?: string;
}

/** What each of a server's log lines starts with: `[toolbox/server]`, or `[toolbox/server for alice]` where it runs for one client. */
export function logPrefix(target: ServerTarget): string {
  return `[${target.toolbox}/${target.server}${target.client === undefined ? "" : ` for ${target.client}`}]`;
}

/** What a link needs of the machine and of the flow around it. */
export type LinkHost = Pick<Platform, "spawn" | "env" | "writeStderr" | "windows"> & {
  /** Reading from servers waits while this is held: the client is not taking what we send. */
  readGate?: FlowGate;
  /** Held while a server is not taking what we send it: reading from the client waits. */
  sendGate?: FlowGate;
  /** Where a command not on the child's PATH is looked for; without it, nowhere else. */
  commandSearch?: CommandSearch;
};

export interface ServerLink {
  /** The SDK transport to the server. */
  readonly transport: Transport;
  /** Messages pass this first: true means it was taken (by the tools/call lane). */
  claim?: (message: JSONRPCMessage) => boolean;
  /** Called at most once when the link ends by itself (a crash, a lost network connection). */
  onLost?: (reason: string) => void;
  /** True once a remote server has answered 404 for our session: a new one may be initialized. */
  readonly sessionExpired?: boolean;
  /** Why the link ended if it does within `ms` (a child's exit status), to name it in failures. */
  endedWithin(ms: number): Promise<string | undefined>;
  /** Ends the link; called just before the SDK Client closes its transport, and may be called again. */
  close(options: { graceful: boolean }): Promise<void>;
  /** A message about this server as it may be shown: secrets masked. */
  redact(text: string): string;
  /** The secrets `redact` masks, for masking whole messages the server sends (address/mask-message.ts). */
  readonly redactor?: Redactor;
  /** `reason` followed by what the server said last about it (a child's last stderr lines). */
  explain?(reason: string): Promise<string>;
  /** True when a child that ended wrote anything on stderr (its last lines waited for a moment). */
  saidAnything?(): Promise<boolean>;
  /**
   * Calls `go`, which sends at once, when the bytes waiting for the server are under its bound and
   * earlier calls have had their turn; never if `signal` aborts first. Without it, `go` runs at once.
   */
  whenRoom?(go: () => void, signal: SignalSource): void;
  /** Takes back a request not yet begun to be written: the server never sees it. False if it cannot. */
  withdraw?(id: RequestId): boolean;
  /** Cancels a request by ending its own exchange (an HTTP POST, as 2026-07-28 wants); false if it cannot. */
  abortRequest?(id: RequestId): boolean;
  /**
   * The request of ours that the server's request `id` was made within, where the link knows it:
   * it came on that request's own HTTP stream, or in its 2026-07-28 result. Asked once per request.
   */
  askedFor?(id: RequestId): RequestId | undefined;
}
