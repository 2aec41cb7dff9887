/**
 * The `serve` key as `check` shows it: each client's name and grants and where its token comes
 * from, the authorization server, the origins let in. Never a token, nor its hash.
 */
import type { ServeConfig } from "../../config/index.ts";

export interface ServeSummary {
  /** `unreadable`: why the client's token cannot be read (it is refused). */
  clients: { name: string; toolboxes: "*" | string[]; token: "sha256" | "environment"; unreadable?: string }[];
  oauth?: { issuer: string; jwksUri: string; audience: string[] };
  allowedOrigins: string[];
  sessionIdleMinutes: number;
}

export function serveSummary(serve: ServeConfig): ServeSummary {
  return {
    clients: Object.entries(serve.clients).map(([name, client]) => ({
      name,
      toolboxes: client.toolboxes === "*" ? "*" : [...client.toolboxes],
      token: client.tokenSha256 !== undefined ? "sha256" : "environment",
      ...(client.unreadable !== undefined && { unreadable: client.unreadable }),
    })),
    ...(serve.oauth && { oauth: { issuer: serve.oauth.issuer, jwksUri: serve.oauth.jwksUri, audience: [...serve.oauth.audience] } }),
    allowedOrigins: [...serve.allowedOrigins],
    sessionIdleMinutes: serve.sessionIdleMinutes,
  };
}

/** Why each client whose token cannot be read is refused: said when serving starts. */
export function refusedClients(serve: ServeConfig | undefined): string[] {
  return Object.entries(serve?.clients ?? {}).filter(([, client]) => client.unreadable !== undefined)
    .map(([name, client]) => `Client '${name}' is refused: its token cannot be read: ${client.unreadable}`);
}

/** The summary as lines of check's table. */
export function serveLines(summary: ServeSummary): string[] {
  const quoted = (items: readonly string[]) => items.map((item) => `'${item}'`).join(", ");
  const lines = ["Served over HTTP to:"];
  for (const client of summary.clients) {
    const grants = client.toolboxes === "*" ? "every toolbox" : `toolboxes ${quoted(client.toolboxes)}`;
    const token = client.token === "sha256" ? "token given by its SHA-256" : "token from the environment";
    lines.push(
      `  client '${client.name}': ${
        client.unreadable !== undefined ? `refused, its token cannot be read: ${client.unreadable}` : `${grants} (${token})`
      }`,
    );
  }
  if (summary.oauth) {
    lines.push(
      `  tokens of '${summary.oauth.issuer}' for ${
        quoted(summary.oauth.audience)
      }: the toolboxes of their scopes toolbox:NAME (toolbox:* for all)`,
    );
  }
  if (summary.clients.length === 0 && !summary.oauth) lines.push("  one open user, on loopback only (no clients and no oauth)");
  lines.push(`  web pages from loopback${summary.allowedOrigins.length > 0 ? ` and ${quoted(summary.allowedOrigins)}` : " only"}`);
  lines.push(`  sessions end after ${summary.sessionIdleMinutes} idle minute${summary.sessionIdleMinutes === 1 ? "" : "s"}`);
  return lines;
}
