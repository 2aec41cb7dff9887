/**
 * Which file each imported server goes into, for `mcp-workbench init`. One file, but for a client
 * with servers of one project folder (Claude Code's project and local scopes, Cursor's project
 * file, VS Code's workspace file): those go into a file of their own, served by a workbench the
 * client starts for that folder alone (`claude mcp add --scope local`, an entry in the project's
 * own file), while the others go into the file the workbench of every folder serves.
 */
import type { ClientName } from "./clients.ts";
import type { Imported } from "./init-import.ts";

/** The scopes of a client that belong to one project folder. */
const PROJECT_SCOPES: Partial<Record<ClientName, string[]>> = {
  "claude-code": ["project", "local"],
  cursor: ["project"],
  vscode: ["workspace"],
};

/** One file to write: its servers and how the client is to start the workbench that serves it. */
export interface Target {
  file: string;
  servers: Imported["servers"];
  /**
   * The workbench's entry in the client: its name, and whether it is the one of every folder
   * ("user") or of one project folder ("local", Claude Code's word; `folder` is that folder).
   */
  register?: { scope: "user" | "local"; name: string; folder?: string };
}

/**
 * The files to write. With servers of the project folder: those go to `<out without .json>.<folder
 * name>.json`, served by `workbench-<folder name>`, which the project's own entry starts.
 */
export function targetsOf(imported: Imported, out: string, project: string): Target[] {
  const projectScopes = PROJECT_SCOPES[imported.client];
  if (!projectScopes) return [{ file: out, servers: imported.servers }];
  const inProject = (name: string) => projectScopes.includes(imported.scopes[name] ?? "");
  const pick = (wanted: boolean) => Object.fromEntries(Object.entries(imported.servers).filter(([name]) => inProject(name) === wanted));
  const user = pick(false);
  const local = pick(true);
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
