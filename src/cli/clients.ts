/**
 * Where MCP clients keep their server lists, how those lists are shaped, and how each client wants
 * the workbench's own entry: for `mcp-workbench init`.
 */
import { configFolder, join, type Places } from "../config/user-file.ts";

export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf"] as const;
export type ClientName = typeof CLIENTS[number];

/** The files a client reads its servers from, in the order they are merged (later entries win). */
export function clientFiles(client: ClientName, places: Places): string[] {
  switch (client) {
    case "claude-desktop":
      return [join(configFolder(places), "Claude/claude_desktop_config.json")];
    case "claude-code":
      // The user's servers (top-level mcpServers), then the project's in the current folder.
      return [join(places.home, ".claude.json"), join(places.cwd, ".mcp.json")];
    case "cursor":
      return [join(places.home, ".cursor/mcp.json")];
    case "vscode":
      return [join(places.cwd, ".vscode/mcp.json")];
    case "windsurf":
      return [join(places.home, ".codeium/windsurf/mcp_config.json")];
  }
}

/** VS Code lists its servers under "servers"; the others under "mcpServers". */
export function serversKey(client: ClientName): "servers" | "mcpServers" {
  return client === "vscode" ? "servers" : "mcpServers";
}

/** A server entry's keys the workbench takes over as they are; `type` only for remote servers. */
const CARRIED = ["command", "args", "env", "cwd", "type", "url", "headers"];

/**
 * The workbench's entry for one client server, and the keys left out. `type: "stdio"` is the
 * workbench's default and is dropped; every other carried key goes over unchanged.
 */
export function convertEntry(entry: Record<string, unknown>): { server: Record<string, unknown>; leftOut: string[] } {
  const server: Record<string, unknown> = {};
  const leftOut: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (key === "type" && value === "stdio") continue;
    if (CARRIED.includes(key)) server[key] = value;
    else leftOut.push(key);
  }
  return { server, leftOut };
}

/** The block to paste into the client so that it starts the workbench, in the client's own format. */
export function pasteBlock(client: ClientName, command: string, args: string[]): string {
  if (client === "claude-code") return ["claude", "mcp", "add", "--scope", "user", "workbench", "--", command, ...args].map(shellQuote).join(" ");
  const entry = client === "vscode" ? { type: "stdio", command, args } : { command, args };
  return JSON.stringify({ [serversKey(client)]: { workbench: entry } }, null, 2);
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Client files are often JSON with comments and trailing commas (VS Code's are): both are removed,
 * strings left alone, before JSON.parse.
 */
export function stripJsonComments(text: string): string {
  const withoutComments = outsideStrings(text, (at) => {
    if (text.startsWith("//", at)) {
      const end = text.indexOf("\n", at);
      return { end: end === -1 ? text.length : end, put: "" };
    }
    if (text.startsWith("/*", at)) {
      const end = text.indexOf("*/", at + 2);
      return { end: end === -1 ? text.length : end + 2, put: " " };
    }
  });
  const trailingComma = /,\s*[}\]]/y;
  return outsideStrings(withoutComments, (at) => {
    trailingComma.lastIndex = at;
    return trailingComma.test(withoutComments) ? { end: at + 1, put: "" } : undefined;
  });
}

/** Copies text, letting `edit` replace what starts at each position outside JSON strings. */
function outsideStrings(text: string, edit: (at: number) => { end: number; put: string } | undefined): string {
  let out = "";
  for (let i = 0; i < text.length;) {
    if (text[i] === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const change = text[i] === "/" || text[i] === "," ? edit(i) : undefined;
    if (change) {
      out += change.put;
      i = change.end;
    } else {
      out += text[i++];
    }
  }
  return out;
}
