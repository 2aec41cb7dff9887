/**
 * Per-agent scoping (issue 39): one configuration, several agents, each seeing only some toolboxes.
 * A scope (`--toolboxes dev,docs`, WORKBENCH_TOOLBOXES, or the HTTP path `/mcp/dev,docs`) narrows
 * the client's grants and never widens them. The narrowed client keeps its name, so that it shares
 * server processes with the same client's other scopes (the pool keys processes by the name).
 */
import type { Identity } from "./identity.ts";

/** The environment variable that scopes a stdio workbench, for clients that cannot pass arguments per agent. */
export const SCOPE_VARIABLE = "WORKBENCH_TOOLBOXES";

/** The toolbox names of a scope ("dev, docs"), or undefined when it names none. */
export function parseScope(text: string): string[] | undefined {
  const names = [...new Set(text.split(",").map((name) => name.trim()).filter((name) => name !== ""))];
  return names.length > 0 ? names : undefined;
}

/** The client seeing only the scope's toolboxes among those it was granted. */
export function scoped(client: Identity, scope: readonly string[] | undefined): Identity {
  if (scope === undefined) return client;
  const toolboxes = client.toolboxes === "*" ? [...scope] : client.toolboxes.filter((name) => scope.includes(name));
  return { name: client.name, toolboxes };
}

/** The scope's names that are not toolboxes of `known`: a start with them is refused, a path answers 404. */
export function unknownInScope(scope: readonly string[], known: readonly string[]): string[] {
  return scope.filter((name) => !known.includes(name));
}
