/**
 * What a server asks of a client without a token, found the way any client finds it: by asking.
 * A login starts with the requests a client would make (initialize, then tools/list, since some
 * servers let anyone initialize) until one is refused with 401 or 403; its WWW-Authenticate
 * header may name the protected-resource metadata (RFC 9728) and the scope the server wants.
 */
import { extractWWWAuthenticateParams } from "../protocol/sdk-remote.ts";
import { LATEST_PROTOCOL_VERSION } from "../protocol/sdk.ts";
import type { RemoteServerConfig } from "../config/index.ts";
import { NAME, VERSION } from "../protocol/version.ts";
import { requestTarget } from "../address/request-target.ts";

export interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
  /** The server answered initialize and tools/list without a token: it needs no login. */
  open?: true;
}

/** Never fails: a server that answers otherwise (or not at all) leaves discovery to its defaults. */
export async function challengeOf(config: RemoteServerConfig, fetchFn: typeof fetch = fetch): Promise<Challenge> {
  const { url, headers } = requestTarget(config);
  const signal = AbortSignal.timeout(config.connectTimeoutMs);
  const base: Record<string, string> = { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const post = async (body: object, extra: Record<string, string> = {}) => {
    const response = await fetchFn(url, { method: "POST", headers: { ...base, ...extra }, body: JSON.stringify(body), signal });
    // Only the status and headers matter; an event stream would stay open.
    await response.body?.cancel().catch(() => {});
    return response;
  };
  try {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: NAME, version: VERSION } },
    };
    const first = await post(initialize);
    if (first.status === 401 || first.status === 403) return paramsOf(first);
    if (!first.ok) return {};
    const session = first.headers.get("mcp-session-id");
    const sessionHeaders: Record<string, string> = {
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
      ...(session && { "mcp-session-id": session }),
    };
    try {
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders);
      const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, sessionHeaders);
      if (list.status === 401 || list.status === 403) return paramsOf(list);
      return list.ok ? { open: true } : {};
    } finally {
      if (session) {
        await fetchFn(url, { method: "DELETE", headers: { ...headers, ...sessionHeaders }, signal })
          .then((response) => response.body?.cancel()).catch(() => {});
      }
    }
  } catch {
    return {};
  }
}

function paramsOf(response: Response): Challenge {
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl && { resourceMetadataUrl }), ...(scope && { scope }) };
}
