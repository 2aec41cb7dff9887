/**
 * `mcp-workbench init --merge`: the imported servers added to a configuration that is already
 * there. What the file holds stays; a server joins the toolbox unless the file has it already.
 */
import { InitError } from "./init-import.ts";

type Json = Record<string, unknown>;

/** What merging did: the new file's content, the servers added, and those left out with the reason. */
export interface Merged {
  config: Json;
  added: string[];
  kept: { name: string; why: string }[];
}

/**
 * Adds `servers` to toolbox `toolbox` of `existing` (made when the file has no such toolbox, with
 * `description`). A server the file has under the same name with the same entry, in any toolbox,
 * is already there; one whose name the toolbox gives another entry is left out, the file's kept.
 */
export function mergeServers(existing: unknown, file: string, toolbox: string, servers: Record<string, Json>, description: string): Merged {
  const toolboxes = isObject(existing) ? existing.toolboxes : undefined;
  if (!isObject(existing) || !isObject(toolboxes)) {
    throw new InitError(
      `Cannot merge into '${file}': it is not a workbench configuration (no "toolboxes"); give another --out, or --force to overwrite it`,
    );
  }
  const target = toolboxes[toolbox];
  if (target !== undefined && (!isObject(target) || (target.mcpServers !== undefined && !isObject(target.mcpServers)))) {
    throw new InitError(`Cannot merge into '${file}': toolbox '${toolbox}' is not an object of servers`);
  }
  const into: Json = { ...(isObject(target?.mcpServers) ? target.mcpServers : {}) };
  const added: string[] = [];
  const kept: Merged["kept"] = [];
  for (const [name, entry] of Object.entries(servers)) {
    const same = Object.entries(toolboxes).find(([, box]) =>
      isObject(box) && isObject(box.mcpServers) && sameEntry(box.mcpServers[name], entry)
    );
    if (same) kept.push({ name, why: `already in toolbox '${same[0]}'` });
    else if (Object.hasOwn(into, name)) kept.push({ name, why: `toolbox '${toolbox}' has another server of that name, kept as it is` });
    else {
      into[name] = entry;
      added.push(name);
    }
  }
  const box = isObject(target)
    ? { ...target, ...ownDescription(target, into, description), mcpServers: into }
    : { description, mcpServers: into };
  return { config: { ...existing, toolboxes: { ...toolboxes, [toolbox]: box } }, added, kept };
}

/**
 * The description init wrote ("Servers from CLIENT: a, b"), brought up to date: the servers now in
 * the toolbox, and the client they came from. One the user wrote is left alone (nothing returned).
 */
function ownDescription(toolbox: Json, servers: Json, fresh: string): { description?: string } {
  const given = toolbox.description;
  const names = isObject(toolbox.mcpServers) ? Object.keys(toolbox.mcpServers) : [];
  const own = typeof given === "string" ? /^Servers from (.+?): (.*)$/.exec(given) : null;
  if (!own || own[2] !== names.join(", ")) return {};
  const clients = new Set([...own[1].split(", "), /^Servers from (.+?): /.exec(fresh)?.[1] ?? ""].filter(Boolean));
  return { description: `Servers from ${[...clients].join(", ")}: ${Object.keys(servers).join(", ")}` };
}

function sameEntry(a: unknown, b: unknown): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
