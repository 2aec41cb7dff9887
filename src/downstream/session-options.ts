/**
 * What a server session is given: the host it runs in (the machine, the client in front, logins,
 * the era memory), and each call's own options and limits.
 */
import type { Progress, RequestId } from "../protocol/sdk.ts";
import type { ServerConfig } from "../config/index.ts";
import type { CallInput } from "../protocol/wire.ts";
import type { Upstream } from "../protocol/upstream.ts";
import type { RemoteAuth } from "../auth/remote-auth.ts";
import type { ChatLogin } from "../auth/chat-login.ts";
import type { TokenExchanges } from "../auth/token-exchange.ts";
import type { MemberVault } from "../auth/member-vault.ts";
import type { LinkHost } from "./links/link.ts";
import type { EraMemory } from "./era/era-link.ts";
import type { CallCancel } from "./call-cancel.ts";
import type { Telemetry } from "../telemetry/index.ts";

export type ServerSessionHost = LinkHost & {
  /** Tokens for remote servers that need OAuth; without it a 401 is an error like any other. */
  auth?: RemoteAuth;
  /**
   * The clients a server works for (one session, or the sessions sharing it), whose capabilities
   * it is given; none for the subcommands.
   */
  upstream?: Upstream;
  /** Each member's token for a server that exchanges the one they signed in with (auth.tokenExchange). */
  tokenExchange?: TokenExchanges;
  /** Serving a team over HTTP: what members provided (secrets, their own logins to remote servers). */
  vault?: MemberVault;
  /** A login the user gives in the client (URL elicitation); none for the subcommands. */
  chatLogin?: ChatLogin;
  /** Which protocol era each server definition speaks, from earlier starts: a 2025 server is not probed again. */
  eras?: EraMemory;
  /** On: the requests a server session sends of its own (initialize, listings) are CLIENT spans (traced-requests.ts). */
  telemetry?: Telemetry;
};

/** A call's own limits: each toolbox that shares a server keeps those it configured. */
export type CallLimits = Pick<ServerConfig, "callTimeoutMs" | "maxCallTimeMs">;


export interface CallOptions {
  signal?: AbortSignal;
  /** The client's cancellation, watched without an AbortSignal (issue 42); `signal` then is not given. */
  cancel?: CallCancel;
  /** Downstream progress, for the client that asked for it. */
  onProgress?: (progress: Progress) => void;
  /** The limits of the toolbox's server entry; the server session's own configuration otherwise. */
  limits?: CallLimits;
  /** The client's request (a use_tool call) this call serves. */
  relatedRequestId?: RequestId;
  /** The session the call works for: the server's questions and log messages during it go there. */
  upstream?: Upstream;
  /** What a 2026-07-28 client's retry carries for the server. */
  input?: CallInput;
  /** Trace context for the request's `_meta` (traceparent, tracestate, baggage), when tracing is on. */
  meta?: Readonly<Record<string, string>>;
}
