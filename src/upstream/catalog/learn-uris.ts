/**
 * The URIs a tool result names (resource_link items, embedded resources), for the URI table: a
 * client reads them back with resources/read, and that request must reach the same server.
 * A result relayed as the server's bytes (over 1 MiB, see raw-json.ts) is not looked into:
 * parsing it here would undo the memory that relay saves. A URI only such a result names is read
 * only if its server lists it or has a template that matches it.
 */
import type { CallToolResult } from "../../protocol/sdk.ts";
import { rawJsonOf } from "../../transport/raw-json.ts";
import type { UriOwner, UriTable } from "./uri-table.ts";

export function learnUris(table: UriTable, owner: UriOwner, result: CallToolResult): void {
  if (rawJsonOf(result)) return;
  const content: unknown = result.content;
  if (!Array.isArray(content)) return;
  for (const item of content as { type?: unknown; uri?: unknown; resource?: { uri?: unknown } }[]) {
    if (item?.type === "resource_link" && typeof item.uri === "string") table.learn(owner, item.uri);
    else if (item?.type === "resource" && typeof item.resource?.uri === "string") table.learn(owner, item.resource.uri);
  }
}
