/**
 * Where MCP clients keep their server lists, how those lists are shaped, and how each client wants
 * the workbench's own entry: for `mcp-workbench init`.
 */
import { configFolder, join, type Places } from "../config/user-file.ts";

export const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "windsurf"] as const;
export type ClientName = typeof CLIENTS[number];

/**
 * One place a client keeps servers: a file and, for Claude Code's local scope, the project whose
 * entry in that file holds them (`projects[<folder>].mcpServers`).
 */
export interface ServerSource {
  file: string;
  /** The client's name for it when the client has several: Claude Code's user, project and local. */
  scope?: string;
  project?: string;
}

/**
 * Where a client reads its servers, lowest precedence first: a server named in several is taken
 * from the last (Claude Code: local > project > user; Cursor: project > global). `project` is the
 * project folder, the current one unless --project names another.
 */
export function clientSources(client: ClientName, places: Places, project: string): ServerSource[] {
  switch (client) {
    case "claude-desktop":
      return [{ file: join(configFolder(places), "Claude/claude_desktop_config.json") }];
    case "claude-code": {
      const file = join(places.home, ".claude.json");
      return [
        { file, scope: "user" },
        { file: join(project, ".mcp.json"), scope: "project" },
        { file, scope: "local", project },
      ];
    }
    case "cursor": {
      const global = join(places.home, ".cursor/mcp.json");
      const own = join(project, ".cursor/mcp.json");
      // Run in the home folder, the project's file is the global one: read once, as global.
      const same = places.os === "linux" ? own === global : own.toLowerCase() === global.toLowerCase();
      return same ? [{ file: global, scope: "global" }] : [{ file: global, scope: "global" }, { file: own, scope: "project" }];
    }
    case "vscode":
      // The user's own file (Code/User/mcp.json in the platform's config folder), then the workspace's, which wins a name.
      return [{ file: join(configFolder(places), "Code/User/mcp.json"), scope: "user" }, {
        file: join(project, ".vscode/mcp.json"),
        scope: "workspace",
      }];
    case "windsurf":
      return [{ file: join(places.home, ".codeium/windsurf/mcp_config.json") }];
  }
}

/** Whether the client has files in the project folder (so that --project means something for it). */
export function readsProject(client: ClientName): boolean {
  return client === "claude-code" || client === "cursor" || client === "vscode";
}

/**
 * The key of `projects` in ~/.claude.json that stands for `folder`: Claude Code keys it by the
 * absolute path, with forward slashes on Windows; case does not matter there.
 */
export function projectKey(projects: Record<string, unknown>, folder: string, os: string): string | undefined {
  const normal = (path: string) => {
    const slashed = path.replaceAll("\\", "/").replace(/(?<=.)\/+$/, "");
    return os === "windows" ? slashed.toLowerCase() : slashed;
  };
  const wanted = normal(folder);
  return Object.keys(projects).find((key) => normal(key) === wanted);
}

/** VS Code lists its servers under "servers"; the others under "mcpServers". */
export function serversKey(client: ClientName): "servers" | "mcpServers" {
  return client === "vscode" ? "servers" : "mcpServers";
}

/** A server entry's keys the workbench takes over as they are; `type` only for remote servers. */
const CARRIED = ["command", "args", "env", "cwd", "type", "url", "headers"];
/** Other names clients give a remote server's address (Windsurf's "serverUrl") and its type (Cline's "streamableHttp"). */
const URL_KEYS = ["serverUrl"];
const HTTP_TYPES = ["streamableHttp", "streamable-http", "streamable_http"];

/**
 * The workbench's entry for one client server, and the keys left out. `type: "stdio"` is the
 * workbench's default and is dropped; Windsurf's `serverUrl` is the `url`; `"disabled": true`
 * (Windsurf, Cline) is kept, `false` (the default) dropped; Windsurf's `disabledTools` (the tools
 * the user turned off) become toolFilters' "!name" entries, so they stay off (`toolsOff`); every
 * other carried key goes over unchanged.
 */
export function convertEntry(entry: Record<string, unknown>): { server: Record<string, unknown>; leftOut: string[]; toolsOff: string[] } {
  const server: Record<string, unknown> = {};
  const leftOut: string[] = [];
  const names = (value: unknown): value is string[] => Array.isArray(value) && value.every((name) => typeof name === "string");
  const toolsOff = names(entry.disabledTools) ? entry.disabledTools : [];
  if (toolsOff.length > 0) server.toolFilters = toolsOff.map((name) => `!${name}`);
  for (const [key, value] of Object.entries(entry)) {
    if (key === "type" && value === "stdio") continue;
    if (key === "disabledTools" && names(value)) continue;
    if (key === "disabled" && typeof value === "boolean") {
      if (value) server.disabled = true;
    } else if (key === "type" && HTTP_TYPES.includes(value as string)) server.type = "http";
    else if (URL_KEYS.includes(key) && entry.url === undefined) server.url = value;
    else if (CARRIED.includes(key)) server[key] = value;
    else leftOut.push(key);
  }
  return { server, leftOut, toolsOff };
}

/**
 * The block to paste into the client so that it starts the workbench, in the client's own format;
 * `env` for the workbench's entry (VS Code's inputs, passed on as the variables the file reads);
 * `register`: Claude Code's scope and name for it; `inputs`: VS Code's "inputs" entries that `env`
 * uses, which the block defines itself: VS Code resolves an `${input:…}` only from the file that holds it.
 */
export function pasteBlock(
  client: ClientName,
  command: string,
  args: string[],
  env: Record<string, string> = {},
  register: { scope: string; name: string } = { scope: "user", name: "workbench" },
  inputs: Record<string, unknown>[] = [],
): string {
  if (client === "claude-code") {
    return ["claude", "mcp", "add", "--scope", register.scope, register.name, "--", command, ...args].map(shellQuote).join(" ");
  }
  const entry = client === "vscode" ? { type: "stdio", command, args } : { command, args };
  if (Object.keys(env).length > 0) Object.assign(entry, { env });
  const defined = client === "vscode" && inputs.length > 0 ? { inputs } : {};
  return JSON.stringify({ ...defined, [serversKey(client)]: { [register.name]: entry } }, null, 2);
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
