/**
 * The `serve` key as `check` shows it: each client's name and grants and where its token comes
 * from, the authorization server, the origins let in. Never a token, nor its hash.
 */
import type { ServeConfig } from "../../config/index.ts";

export interface ServeSummary {
  clients: { name: string; toolboxes: "*" | string[]; token: "sha256" | "environment" }[];
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
    })),
    ...(serve.oauth && { oauth: { issuer: serve.oauth.issuer, jwksUri: serve.oauth.jwksUri, audience: [...serve.oauth.audience] } }),
    allowedOrigins: [...serve.allowedOrigins],
    sessionIdleMinutes: serve.sessionIdleMinutes,
  };
}

/** The summary as lines of check's table. */
export function serveLines(summary: ServeSummary): string[] {
  const quoted = (items: readonly string[]) => items.map((item) => `'${item}'`).join(", ");
  const lines = ["Served over HTTP to:"];
  for (const client of summary.clients) {
    const grants = client.toolboxes === "*" ? "every toolbox" : `toolboxes ${quoted(client.toolboxes)}`;
    const token = client.token === "sha256" ? "token given by its SHA-256" : "token from the environment";
    lines.push(`  client '${client.name}': ${grants} (${token})`);
  }
  if (summary.oauth) {
    lines.push(`  tokens of '${summary.oauth.issuer}' for ${quoted(summary.oauth.audience)}: the toolboxes of their scopes toolbox:NAME (toolbox:* for all)`);
  }
  if (summary.clients.length === 0 && !summary.oauth) lines.push("  one open user, on loopback only (no clients and no oauth)");
  lines.push(`  web pages from loopback${summary.allowedOrigins.length > 0 ? ` and ${quoted(summary.allowedOrigins)}` : " only"}`);
  lines.push(`  sessions end after ${summary.sessionIdleMinutes} idle minute${summary.sessionIdleMinutes === 1 ? "" : "s"}`);
  return lines;
}
