/**
 * Which file each imported server goes into, for `mcp-workbench init`. One file, but for Claude
 * Code: its project and local scopes belong to one project folder, so their servers go into a file
 * of their own that a workbench registered for that folder alone serves (`claude mcp add --scope
 * local`), while user-scope servers go into the file the user-scope workbench serves.
 */
import type { Imported } from "./init-import.ts";

/** One file to write: its servers and how the client is to start the workbench that serves it. */
export interface Target {
  file: string;
  servers: Imported["servers"];
  /** Claude Code's scope the workbench is registered in, and the name it is registered under. */
  register?: { scope: "user" | "local"; name: string; folder?: string };
}

/**
 * The files to write. For Claude Code with servers of the project folder: those go to
 * `<out without .json>.<folder name>.json`, served by `workbench-<folder name>` in local scope.
 */
export function targetsOf(imported: Imported, out: string, project: string): Target[] {
  if (imported.client !== "claude-code") return [{ file: out, servers: imported.servers }];
  const pick = (scopes: string[]) =>
    Object.fromEntries(Object.entries(imported.servers).filter(([name]) => scopes.includes(imported.scopes[name] ?? "user")));
  const user = pick(["user"]);
  const local = pick(["project", "local"]);
  const targets: Target[] = [];
  if (Object.keys(user).length > 0 || Object.keys(local).length === 0) {
    targets.push({ file: out, servers: user, register: { scope: "user", name: "workbench" } });
  }
  if (Object.keys(local).length > 0) {
    const slug = (project.split(/[\\/]/).filter(Boolean).at(-1) ?? "project").replace(/[^A-Za-z0-9_-]+/g, "-");
    targets.push({
      file: `${out.replace(/\.json$/i, "")}.${slug}.json`,
      servers: local,
      register: { scope: "local", name: `workbench-${slug}`, folder: project },
    });
  }
  return targets;
}
