/**
 * What every call of a session is given (see tools/pipeline/step.ts), made once when the session
 * opens: the configuration in force, the session's offer, what it keeps, who it works for, the
 * client to ask, the audit log, its tool search and skill files.
 */
import type { LiveConfig } from "../config/live.ts";
import type { SessionOffer } from "../toolboxes/session-offer.ts";
import type { SessionSearch } from "../tools/session-search.ts";
import { ResultStore } from "../tools/result-store.ts";
import type { SkillFileReader, ToolSession } from "../tools/tool.ts";
import type { UriTable } from "./catalog/uri-table.ts";
import { learnUris } from "./catalog/learn-uris.ts";
import type { ClientUpstream } from "./client-upstream.ts";
import type { SessionState } from "./session-state.ts";
import type { AuditLog } from "../trust/audit-log.ts";
import type { Telemetry } from "../telemetry/index.ts";
import type { ConnectFlow } from "../auth/connect-flow.ts";

/** What the session was opened with that its calls need (see WorkbenchServerOptions). */
export interface SessionOptionsForCalls {
  upstream?: ClientUpstream;
  state?: SessionState;
  sessionId?: string;
  clientName?: string;
  audit?: AuditLog;
  stateless?: boolean;
  telemetry?: Telemetry;
  connect?: ConnectFlow;
}

/** What the session made before its calls: its offer, its URI table, skills and search, and whether its client speaks 2026-07-28. */
export interface SessionParts {
  offer: SessionOffer;
  live: LiveConfig;
  uris: UriTable;
  skills: SkillFileReader;
  search: SessionSearch;
  modern: () => boolean;
}

export function toolSession(options: SessionOptionsForCalls, parts: SessionParts): ToolSession {
  const { offer, live, uris } = parts;
  return {
    // Read by each call: the configuration in force when it came.
    get config() {
      return live.current;
    },
    offer,
    upstream: options.upstream,
    // The session's cut results (issue 28): read on with read_result, gone with the session.
    results: options.state?.results ?? new ResultStore(),
    onToolResult: (id, result) => {
      const owner = offer.configured.find((c) => c.toolbox === id.toolbox && c.server === id.server);
      if (owner) learnUris(uris, owner, result);
    },
    clientOpensUrls: () => options.upstream?.capabilities?.elicitation?.url !== undefined,
    sessionId: options.sessionId,
    clientName: options.clientName,
    approvals: options.state?.approvals,
    audit: options.audit,
    telemetry: options.telemetry,
    // A member's own (HTTP): the local user's secrets are the environment's, never asked for.
    connect: options.connect && options.clientName !== undefined ? { flow: options.connect, member: options.clientName } : undefined,
    opensToolboxes: () => options.stateless === true && parts.modern(),
    search: parts.search,
    skills: parts.skills,
  };
}
